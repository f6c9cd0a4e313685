// Copyright 2014 The Go Authors.  All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Reading of PDF tokens and objects.
//
// Changed from github.com/dslipak/pdf: the buffer reads from a byte slice
// held in memory instead of re-reading an io.ReaderAt in 4 KiB chunks (the
// upstream seekForward dropped the last chunk of a stream when the reader
// returned data together with io.EOF, and readByte returned '\n' forever at
// the end of input, so an unterminated string or array looped endlessly).
// End of input now always ends a token, string, array and dictionary, and
// nesting is limited to maxDepth.

package pdf

import (
	"errors"
	"fmt"
	"io"
	"strconv"
)

// maxDepth bounds the nesting of arrays and dictionaries.
const maxDepth = 256

// A token is a PDF token in the input stream, one of the following Go types:
//
//	bool, a PDF boolean
//	int64, a PDF integer
//	float64, a PDF real
//	string, a PDF string literal
//	keyword, a PDF keyword
//	name, a PDF name without the / prefix
//	error, io.EOF at the end of input
type token interface{}

// A name is a PDF name, without the / prefix.
type name string

// A keyword is a PDF keyword.
// Delimiter tokens used in higher-level syntax,
// such as "<<", ">>", "[", "]", "{", "}", are also treated as keywords.
type keyword string

// A buffer holds buffered input bytes from the PDF file.
type buffer struct {
	data        []byte // input
	pos         int    // read position in data; may pass len(data) at the end
	base        int64  // offset of data[0] in the file
	tmp         []byte // scratch space for accumulating token
	unread      []token
	allowObjptr bool
	allowStream bool
	eof         bool
	depth       int
	objptr      objptr
}

// newBuffer returns a new buffer reading data, which starts at the given
// offset in the file.
func newBuffer(data []byte, offset int64) *buffer {
	return &buffer{
		data:        data,
		base:        offset,
		allowObjptr: true,
		allowStream: true,
	}
}

func (b *buffer) readByte() byte {
	if b.pos >= len(b.data) {
		b.pos++
		b.eof = true
		return '\n'
	}
	c := b.data[b.pos]
	b.pos++
	return c
}

func (b *buffer) unreadByte() {
	if b.pos > 0 {
		b.pos--
	}
}

// readOffset returns the file offset of the next byte to read.
func (b *buffer) readOffset() int64 {
	p := b.pos
	if p > len(b.data) {
		p = len(b.data)
	}
	return b.base + int64(p)
}

func (b *buffer) unreadToken(t token) {
	b.unread = append(b.unread, t)
}

func (b *buffer) readToken() token {
	if n := len(b.unread); n > 0 {
		t := b.unread[n-1]
		b.unread = b.unread[:n-1]
		return t
	}

	// Find first non-space, non-comment byte.
	c := b.readByte()
	for {
		if b.eof {
			return io.EOF
		}
		if isSpace(c) {
			c = b.readByte()
		} else if c == '%' {
			for c != '\r' && c != '\n' {
				c = b.readByte()
			}
		} else {
			break
		}
	}

	switch c {
	case '<':
		if b.readByte() == '<' {
			return keyword("<<")
		}
		b.unreadByte()
		return b.readHexString()

	case '(':
		return b.readLiteralString()

	case '[', ']', '{', '}':
		return keyword(c)

	case '/':
		return b.readName()

	case '>':
		if b.readByte() == '>' {
			return keyword(">>")
		}
		b.unreadByte()
		return keyword(">")

	case ')':
		return keyword(")")

	default:
		b.unreadByte()
		return b.readKeyword()
	}
}

func (b *buffer) readHexString() token {
	tmp := b.tmp[:0]
	for {
		c := b.readByte()
		for isSpace(c) && !b.eof {
			c = b.readByte()
		}
		if c == '>' || b.eof {
			break
		}
		c2 := b.readByte()
		for isSpace(c2) && !b.eof {
			c2 = b.readByte()
		}
		if c2 == '>' || b.eof {
			// An odd number of digits: the last one is followed by 0.
			if x := unhex(c); x >= 0 {
				tmp = append(tmp, byte(x<<4))
			}
			break
		}
		x := unhex(c)<<4 | unhex(c2)
		if x < 0 {
			continue
		}
		tmp = append(tmp, byte(x))
	}
	b.tmp = tmp
	return string(tmp)
}

func unhex(b byte) int {
	switch {
	case '0' <= b && b <= '9':
		return int(b) - '0'
	case 'a' <= b && b <= 'f':
		return int(b) - 'a' + 10
	case 'A' <= b && b <= 'F':
		return int(b) - 'A' + 10
	}
	return -1 << 8
}

func (b *buffer) readLiteralString() token {
	tmp := b.tmp[:0]
	depth := 1
Loop:
	for !b.eof {
		c := b.readByte()
		if b.eof {
			break
		}
		switch c {
		default:
			tmp = append(tmp, c)
		case '(':
			depth++
			tmp = append(tmp, c)
		case ')':
			if depth--; depth == 0 {
				break Loop
			}
			tmp = append(tmp, c)
		case '\\':
			switch c = b.readByte(); c {
			default:
				tmp = append(tmp, c)
			case 'n':
				tmp = append(tmp, '\n')
			case 'r':
				tmp = append(tmp, '\r')
			case 'b':
				tmp = append(tmp, '\b')
			case 't':
				tmp = append(tmp, '\t')
			case 'f':
				tmp = append(tmp, '\f')
			case '\r':
				if b.readByte() != '\n' {
					b.unreadByte()
				}
			case '\n':
				// line continuation
			case '0', '1', '2', '3', '4', '5', '6', '7':
				x := int(c - '0')
				for i := 0; i < 2; i++ {
					c = b.readByte()
					if c < '0' || c > '7' {
						b.unreadByte()
						break
					}
					x = x*8 + int(c-'0')
				}
				tmp = append(tmp, byte(x))
			}
		}
	}
	b.tmp = tmp
	return string(tmp)
}

func (b *buffer) readName() token {
	tmp := b.tmp[:0]
	for {
		c := b.readByte()
		if isDelim(c) || isSpace(c) {
			b.unreadByte()
			break
		}
		if c == '#' {
			x := unhex(b.readByte())<<4 | unhex(b.readByte())
			if x >= 0 {
				tmp = append(tmp, byte(x))
			}
			continue
		}
		tmp = append(tmp, c)
	}
	b.tmp = tmp
	return name(string(tmp))
}

func (b *buffer) readKeyword() token {
	start := b.pos
	for {
		c := b.readByte()
		if isDelim(c) || isSpace(c) {
			b.unreadByte()
			break
		}
	}
	end := b.pos
	if end > len(b.data) {
		end = len(b.data)
	}
	tok := b.data[start:end]
	if len(tok) == 0 {
		// A stray delimiter; skip it.
		b.pos++
		return keyword("")
	}
	switch {
	case string(tok) == "true":
		return true
	case string(tok) == "false":
		return false
	case isInteger(tok):
		x, err := strconv.ParseInt(string(tok), 10, 64)
		if err != nil {
			return float64(0)
		}
		return x
	case isReal(tok):
		x, err := strconv.ParseFloat(string(tok), 64)
		if err != nil {
			return float64(0)
		}
		return x
	}
	return keyword(string(tok))
}

func isInteger(s []byte) bool {
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if len(s) == 0 {
		return false
	}
	for _, c := range s {
		if c < '0' || '9' < c {
			return false
		}
	}
	return true
}

func isReal(s []byte) bool {
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if len(s) == 0 {
		return false
	}
	ndot := 0
	for _, c := range s {
		if c == '.' {
			ndot++
			continue
		}
		if c < '0' || '9' < c {
			return false
		}
	}
	return ndot == 1 && len(s) > 1
}

// An object is a PDF syntax object, one of the following Go types:
//
//	bool, a PDF boolean
//	int64, a PDF integer
//	float64, a PDF real
//	string, a PDF string literal
//	name, a PDF name without the leading slash
//	dict, a PDF dictionary
//	array, a PDF array
//	stream, a PDF stream
//	objptr, a PDF object reference
//	objdef, a PDF object definition
//
// An object may also be nil, to represent the PDF null.
type object interface{}

type dict map[name]object

type array []object

type stream struct {
	hdr    dict
	ptr    objptr
	offset int64
}

type objptr struct {
	id  uint32
	gen uint16
}

type objdef struct {
	ptr objptr
	obj object
}

var errTooDeep = errors.New("malformed PDF: objects nested too deeply")

func (b *buffer) readObject() (object, error) {
	b.depth++
	defer func() { b.depth-- }()
	if b.depth > maxDepth {
		return nil, errTooDeep
	}
	tok := b.readToken()
	if kw, ok := tok.(keyword); ok {
		switch kw {
		case "null":
			return nil, nil
		case "<<":
			return b.readDict()
		case "[":
			return b.readArray()
		}
		return nil, fmt.Errorf("malformed PDF: unexpected keyword %.20q parsing object", string(kw))
	}
	if tok == io.EOF {
		return nil, io.ErrUnexpectedEOF
	}

	if !b.allowObjptr {
		return tok, nil
	}

	if t1, ok := tok.(int64); ok && int64(uint32(t1)) == t1 {
		tok2 := b.readToken()
		if t2, ok := tok2.(int64); ok && int64(uint16(t2)) == t2 {
			tok3 := b.readToken()
			switch tok3 {
			case keyword("R"):
				return objptr{uint32(t1), uint16(t2)}, nil
			case keyword("obj"):
				old := b.objptr
				b.objptr = objptr{uint32(t1), uint16(t2)}
				obj, err := b.readObject()
				if err != nil {
					return nil, err
				}
				if _, ok := obj.(stream); !ok {
					tok4 := b.readToken()
					if tok4 != keyword("endobj") {
						b.unreadToken(tok4)
					}
				}
				b.objptr = old
				return objdef{objptr{uint32(t1), uint16(t2)}, obj}, nil
			}
			b.unreadToken(tok3)
		}
		b.unreadToken(tok2)
	}
	return tok, nil
}

func (b *buffer) readArray() (object, error) {
	var x array
	for {
		tok := b.readToken()
		if tok == io.EOF || tok == keyword("]") {
			break
		}
		b.unreadToken(tok)
		res, err := b.readObject()
		if err == errTooDeep {
			return nil, err
		}
		if err != nil {
			continue // skip the stray token
		}
		x = append(x, res)
	}
	return x, nil
}

func (b *buffer) readDict() (object, error) {
	x := make(dict)
	for {
		tok := b.readToken()
		if tok == io.EOF || tok == keyword(">>") {
			break
		}
		n, ok := tok.(name)
		if !ok {
			continue // skip a non-name key
		}
		if tok := b.readToken(); tok == io.EOF || tok == keyword(">>") {
			break
		} else {
			b.unreadToken(tok)
		}
		res, err := b.readObject()
		if err == errTooDeep {
			return nil, err
		}
		if err != nil {
			continue
		}
		x[n] = res
	}

	if !b.allowStream {
		return x, nil
	}

	tok := b.readToken()
	if tok != keyword("stream") {
		b.unreadToken(tok)
		return x, nil
	}

	switch b.readByte() {
	case '\r':
		if b.readByte() != '\n' {
			b.unreadByte()
		}
	case '\n':
		// ok
	default:
		b.unreadByte()
	}

	return stream{x, b.objptr, b.readOffset()}, nil
}

func isSpace(b byte) bool {
	switch b {
	case '\x00', '\t', '\n', '\f', '\r', ' ':
		return true
	}
	return false
}

func isDelim(b byte) bool {
	switch b {
	case '<', '>', '(', ')', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}
