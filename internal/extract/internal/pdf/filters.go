// Copyright 2014 The Go Authors.  All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package pdf

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/ascii85"
	"errors"
	"fmt"
	"io"
)

// Stream filters. Written for this fork: upstream supported FlateDecode
// with the PNG Up predictor only and ASCII85Decode through a reader that
// corrupted its input; LZW, ASCIIHex, RunLength and the other PNG and TIFF
// predictors are added, and every decoder stops at maxStreamBytes.

var errStreamTooLarge = errors.New("malformed PDF: decoded stream too large")

func applyFilter(data []byte, filter string, param Value) ([]byte, error) {
	var out []byte
	var err error
	switch filter {
	case "FlateDecode", "Fl":
		out, err = inflate(data)
	case "LZWDecode", "LZW":
		early := 1
		if p := param.Key("EarlyChange"); p.Kind() == Integer {
			early = int(p.Int64())
		}
		out, err = lzwDecode(data, early != 0)
	case "ASCIIHexDecode", "AHx":
		return asciiHexDecode(data), nil
	case "ASCII85Decode", "A85":
		return ascii85Decode(data)
	case "RunLengthDecode", "RL":
		return runLengthDecode(data)
	case "Crypt":
		return data, nil
	default:
		return nil, fmt.Errorf("unsupported filter %s", filter)
	}
	if err != nil {
		return nil, err
	}
	return predict(out, param)
}

// inflate decodes zlib data, falling back to raw deflate; a truncated
// stream yields what could be decoded.
func inflate(data []byte) ([]byte, error) {
	var rd io.Reader
	zr, err := zlib.NewReader(bytes.NewReader(data))
	if err != nil {
		rd = flate.NewReader(bytes.NewReader(data))
	} else {
		rd = zr
	}
	out, err := io.ReadAll(io.LimitReader(rd, maxStreamBytes+1))
	if len(out) > maxStreamBytes {
		return nil, errStreamTooLarge
	}
	if err != nil && len(out) == 0 {
		return nil, fmt.Errorf("malformed PDF: flate: %v", err)
	}
	return out, nil
}

func lzwDecode(data []byte, early bool) ([]byte, error) {
	var out []byte
	var table [][]byte
	reset := func() {
		table = table[:0]
		for i := 0; i < 256; i++ {
			table = append(table, []byte{byte(i)})
		}
		table = append(table, nil, nil) // 256 clear, 257 EOD
	}
	reset()
	width := 9
	var bitBuf uint32
	var bits int
	var prev []byte
	for i := 0; i < len(data); {
		for bits < width && i < len(data) {
			bitBuf = bitBuf<<8 | uint32(data[i])
			bits += 8
			i++
		}
		if bits < width {
			break
		}
		code := int(bitBuf>>(bits-width)) & (1<<width - 1)
		bits -= width
		switch {
		case code == 256:
			reset()
			width = 9
			prev = nil
			continue
		case code == 257:
			return out, nil
		}
		var entry []byte
		if code < len(table) && table[code] != nil {
			entry = table[code]
		} else if code == len(table) && prev != nil {
			entry = append(append([]byte{}, prev...), prev[0])
		} else {
			return out, nil
		}
		out = append(out, entry...)
		if len(out) > maxStreamBytes {
			return nil, errStreamTooLarge
		}
		if prev != nil && len(table) < 4096 {
			table = append(table, append(append([]byte{}, prev...), entry[0]))
		}
		prev = entry
		n := len(table)
		if early {
			n++
		}
		switch {
		case n > 2048:
			width = 12
		case n > 1024:
			width = 11
		case n > 512:
			width = 10
		}
	}
	return out, nil
}

func asciiHexDecode(data []byte) []byte {
	out := make([]byte, 0, len(data)/2)
	hi := -1
	for _, c := range data {
		if c == '>' {
			break
		}
		x := unhex(c)
		if x < 0 {
			continue
		}
		if hi < 0 {
			hi = x
			continue
		}
		out = append(out, byte(hi<<4|x))
		hi = -1
	}
	if hi >= 0 {
		out = append(out, byte(hi<<4))
	}
	return out
}

func ascii85Decode(data []byte) ([]byte, error) {
	clean := make([]byte, 0, len(data))
	data = bytes.TrimPrefix(bytes.TrimLeft(data, " \t\r\n\f\x00"), []byte("<~"))
	for _, c := range data {
		if c == '~' {
			break
		}
		if c >= '!' && c <= 'u' || c == 'z' {
			clean = append(clean, c)
		}
	}
	out := make([]byte, 4*len(clean)+4)
	n, _, err := ascii85.Decode(out, clean, true)
	if err != nil && n == 0 {
		return nil, fmt.Errorf("malformed PDF: ascii85: %v", err)
	}
	return out[:n], nil
}

func runLengthDecode(data []byte) ([]byte, error) {
	var out []byte
	for i := 0; i < len(data); {
		n := int(data[i])
		i++
		switch {
		case n == 128:
			return out, nil
		case n < 128:
			end := i + n + 1
			if end > len(data) {
				end = len(data)
			}
			out = append(out, data[i:end]...)
			i = end
		default:
			if i >= len(data) {
				return out, nil
			}
			for k := 0; k < 257-n; k++ {
				out = append(out, data[i])
			}
			i++
		}
		if len(out) > maxStreamBytes {
			return nil, errStreamTooLarge
		}
	}
	return out, nil
}

// predict undoes a PNG or TIFF predictor.
func predict(data []byte, param Value) ([]byte, error) {
	pred := param.Key("Predictor").Int64()
	if pred <= 1 {
		return data, nil
	}
	colors := param.Key("Colors").Int64()
	if colors <= 0 {
		colors = 1
	}
	bpc := param.Key("BitsPerComponent").Int64()
	if bpc <= 0 {
		bpc = 8
	}
	columns := param.Key("Columns").Int64()
	if columns <= 0 {
		columns = 1
	}
	if colors > 64 || bpc > 16 || columns > 1<<20 {
		return nil, fmt.Errorf("malformed PDF: bad predictor parameters")
	}
	bpp := int((colors*bpc + 7) / 8)
	rowLen := int((colors*bpc*columns + 7) / 8)
	if pred == 2 {
		if bpc != 8 {
			return data, nil
		}
		for r := 0; r+rowLen <= len(data); r += rowLen {
			row := data[r : r+rowLen]
			for i := bpp; i < len(row); i++ {
				row[i] += row[i-bpp]
			}
		}
		return data, nil
	}
	out := make([]byte, 0, len(data))
	prev := make([]byte, rowLen)
	cur := make([]byte, rowLen)
	for r := 0; r < len(data); r += rowLen + 1 {
		ft := data[r]
		end := r + 1 + rowLen
		if end > len(data) {
			break
		}
		copy(cur, data[r+1:end])
		for i := 0; i < rowLen; i++ {
			var a, c byte
			if i >= bpp {
				a = cur[i-bpp]
				c = prev[i-bpp]
			}
			b := prev[i]
			switch ft {
			case 1:
				cur[i] += a
			case 2:
				cur[i] += b
			case 3:
				cur[i] += byte((int(a) + int(b)) / 2)
			case 4:
				cur[i] += paeth(a, b, c)
			}
		}
		out = append(out, cur...)
		prev, cur = cur, prev
	}
	return out, nil
}

func paeth(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	pa, pb, pc := abs(p-int(a)), abs(p-int(b)), abs(p-int(c))
	switch {
	case pa <= pb && pa <= pc:
		return a
	case pb <= pc:
		return b
	}
	return c
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
