package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"time"
)

// maxBody bounds a response body the lean client reads.
const maxBody = 64 << 20

// request is one HTTP request of a call: its method, path (with the query,
// if any), body, and extra header lines ("Name: value\r\n"), if any.
type request struct {
	method, path, body, header string
}

// build returns the request's bytes on the wire as HTTP/1.1 to host, with
// the Authorization header value auth: built once, written as is on every
// send.
func (r request) build(host, auth string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nAuthorization: %s\r\n%s", r.method, r.path, host, auth, r.header)
	if r.body != "" {
		fmt.Fprintf(&b, "Content-Type: application/json\r\nContent-Length: %d\r\n", len(r.body))
	}
	b.WriteString("\r\n")
	b.WriteString(r.body)
	return b.Bytes()
}

// leanConn is one keep-alive HTTP/1.1 connection over which pre-built
// requests are written and their responses read with a bufio.Reader, one
// at a time: about the least client work a round trip can take, so that
// a measurement over it is mostly the server's. Not safe for concurrent
// use.
type leanConn struct {
	addr    string
	timeout time.Duration // deadline of one round trip
	conn    net.Conn      // nil until dialled, and after an error
	br      *bufio.Reader
	body    []byte // the last response's body, reused
}

// do writes req, which must be a complete HTTP/1.1 request, and reads the
// response. The body is valid until the next call. After any error the
// connection is closed and the next call dials a new one; a response that
// asks to close the connection closes it too.
func (c *leanConn) do(req []byte) (status int, body []byte, err error) {
	if c.conn == nil {
		conn, err := net.DialTimeout("tcp", c.addr, c.timeout)
		if err != nil {
			return 0, nil, err
		}
		c.conn = conn
		if c.br == nil {
			c.br = bufio.NewReaderSize(conn, 16<<10)
		} else {
			c.br.Reset(conn)
		}
	}
	if err := c.conn.SetDeadline(time.Now().Add(c.timeout)); err != nil {
		c.close()
		return 0, nil, err
	}
	if _, err := c.conn.Write(req); err != nil {
		c.close()
		return 0, nil, err
	}
	var keepAlive bool
	status, c.body, keepAlive, err = readResponse(c.br, c.body)
	if err != nil || !keepAlive {
		c.close()
	}
	return status, c.body, err
}

// close closes the connection, if open.
func (c *leanConn) close() {
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
}

// readResponse reads one HTTP/1.x response from br: the status line, the
// headers and the body, framed by chunked transfer coding, Content-Length,
// or, with neither, the end of the connection. Interim (1xx) responses are
// skipped; 204 and 304 have no body. The body is read into buf's storage,
// grown as needed. keepAlive is false when the connection cannot carry
// another request: HTTP/1.0, "Connection: close" or a body ended by EOF.
func readResponse(br *bufio.Reader, buf []byte) (status int, body []byte, keepAlive bool, err error) {
	for {
		line, err := readLine(br)
		if err != nil {
			return 0, buf[:0], false, fmt.Errorf("status line: %w", err)
		}
		// "HTTP/1.1 200 OK"; the reason phrase may be empty.
		if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' || (len(line) > 12 && line[12] != ' ') {
			return 0, buf[:0], false, fmt.Errorf("malformed status line %.80q", line)
		}
		code, ok := parseUint(line[9:12], 10)
		if !ok || code < 100 {
			return 0, buf[:0], false, fmt.Errorf("malformed status line %.80q", line)
		}
		status = code
		keepAlive = line[7] == '1'
		contentLength, chunked := -1, false
		for {
			h, err := readLine(br)
			if err != nil {
				return 0, buf[:0], false, fmt.Errorf("header: %w", err)
			}
			if len(h) == 0 {
				break
			}
			name, value, ok := bytes.Cut(h, []byte(":"))
			if !ok {
				return 0, buf[:0], false, fmt.Errorf("malformed header %.80q", h)
			}
			value = bytes.TrimSpace(value)
			switch {
			case bytes.EqualFold(name, []byte("Content-Length")):
				n, ok := parseUint(value, 10)
				if !ok || (contentLength >= 0 && n != contentLength) {
					return 0, buf[:0], false, fmt.Errorf("bad Content-Length %.80q", value)
				}
				contentLength = n
			case bytes.EqualFold(name, []byte("Transfer-Encoding")):
				if !bytes.EqualFold(value, []byte("chunked")) {
					return 0, buf[:0], false, fmt.Errorf("unsupported Transfer-Encoding %.80q", value)
				}
				chunked = true
			case bytes.EqualFold(name, []byte("Connection")):
				if bytes.EqualFold(value, []byte("close")) {
					keepAlive = false
				}
			}
		}
		switch {
		case status < 200:
			continue // an interim response; the final one follows
		case status == 204 || status == 304:
			return status, buf[:0], keepAlive, nil
		case chunked:
			body, err := readChunked(br, buf[:0])
			return status, body, keepAlive && err == nil, err
		case contentLength >= 0:
			if contentLength > maxBody {
				return status, buf[:0], false, fmt.Errorf("body of %d bytes exceeds %d", contentLength, maxBody)
			}
			body := slices.Grow(buf[:0], contentLength)[:contentLength]
			if _, err := io.ReadFull(br, body); err != nil {
				return status, buf[:0], false, fmt.Errorf("body: %w", err)
			}
			return status, body, keepAlive, nil
		default:
			body, err := readAll(br, buf[:0])
			return status, body, false, err
		}
	}
}

// readChunked reads a chunked body, and its trailer, appending to buf.
func readChunked(br *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		line, err := readLine(br)
		if err != nil {
			return buf, fmt.Errorf("chunk size: %w", err)
		}
		hex, _, _ := bytes.Cut(line, []byte(";")) // chunk extensions are ignored
		size, ok := parseUint(bytes.TrimSpace(hex), 16)
		if !ok {
			return buf, fmt.Errorf("malformed chunk size %.80q", line)
		}
		if size == 0 {
			for { // trailer fields, up to the empty line
				line, err := readLine(br)
				if err != nil {
					return buf, fmt.Errorf("trailer: %w", err)
				}
				if len(line) == 0 {
					return buf, nil
				}
			}
		}
		if len(buf)+size > maxBody {
			return buf, fmt.Errorf("body exceeds %d bytes", maxBody)
		}
		n := len(buf)
		buf = slices.Grow(buf, size)[:n+size]
		if _, err := io.ReadFull(br, buf[n:]); err != nil {
			return buf, fmt.Errorf("chunk: %w", err)
		}
		if line, err := readLine(br); err != nil || len(line) != 0 {
			return buf, fmt.Errorf("chunk of %d bytes not followed by CRLF", size)
		}
	}
}

// readAll reads up to EOF, appending to buf.
func readAll(br *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) > maxBody {
			return buf, fmt.Errorf("body exceeds %d bytes", maxBody)
		}
		buf = slices.Grow(buf, 4096)
		n, err := br.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, fmt.Errorf("body: %w", err)
		}
	}
}

// readLine returns the next line without its CRLF (or LF). It is valid
// until the next read from br.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("line longer than %d bytes", br.Size())
	}
	if err == io.EOF && len(line) > 0 {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, err
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

// parseUint parses a non-negative integer in base 10 or 16 that fits in
// an int, without converting b to a string.
func parseUint(b []byte, base int) (int, bool) {
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		var d int
		switch {
		case '0' <= c && c <= '9':
			d = int(c - '0')
		case base == 16 && 'a' <= c && c <= 'f':
			d = int(c-'a') + 10
		case base == 16 && 'A' <= c && c <= 'F':
			d = int(c-'A') + 10
		default:
			return 0, false
		}
		n = n*base + d
	}
	return n, true
}

// statusError is the error a non-200 response is, quoting the start of
// its body.
func statusError(status int, body []byte) error {
	return fmt.Errorf("status %d: %.200q", status, body)
}
