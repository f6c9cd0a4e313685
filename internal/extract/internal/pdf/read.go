// Copyright 2014 The Go Authors.  All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package pdf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
)

// Limits against hostile files.
const (
	maxObjects      = 8 << 20   // entries in the cross-reference table
	maxStreamBytes  = 128 << 20 // decoded bytes of one stream
	maxXrefSections = 1024      // /Prev chain length
	maxTotalDecoded = 1 << 30   // decoded stream bytes for the whole document
)

// ErrTooMuchData is returned when a document decodes to more than
// maxTotalDecoded bytes of streams, or shows more glyphs or operators than
// its budget allows.
var ErrTooMuchData = errors.New("pdf: document too large or too complex")

// ErrEncrypted is returned by NewReader for an encrypted file.
var ErrEncrypted = errors.New("pdf: file is encrypted")

// A Reader is a single PDF file open for reading.
//
// Unlike upstream, a Reader keeps every object it has parsed, and every
// object stream it has decoded, so resolving a reference twice costs a map
// look-up instead of a re-parse (and re-inflation of the object stream).
// A Reader is not safe for concurrent use.
type Reader struct {
	data       []byte
	end        int64
	xref       xrefTable
	trailer    dict
	trailerptr objptr
	objs       map[objptr]object
	objStms    map[uint32]map[uint32]object
	resolving  map[objptr]bool
	fonts      map[objptr]*font
	decoded    int64 // stream bytes decoded so far
	ops        int   // content operators interpreted so far
	glyphs     int   // glyphs shown so far
}

// xrefTable maps object numbers to their location; a map, so a hostile
// object number costs nothing.
type xrefTable map[uint32]xref

type xref struct {
	ptr      objptr
	inStream bool
	stream   objptr
	offset   int64
}

// NewReader opens the PDF file held in data.
// It returns ErrEncrypted for an encrypted file.
func NewReader(data []byte) (*Reader, error) {
	head := data
	if len(head) > 1024 {
		head = head[:1024]
	}
	if !bytes.Contains(head, []byte("%PDF-")) {
		return nil, fmt.Errorf("not a PDF file: invalid header")
	}
	end := int64(len(data))
	tail := data
	if len(tail) > 2048 {
		tail = tail[len(tail)-2048:]
	}
	tailOff := end - int64(len(tail))
	if !bytes.Contains(tail, []byte("%%EOF")) {
		return nil, fmt.Errorf("not a PDF file: missing %%%%EOF")
	}
	i := bytes.LastIndex(tail, []byte("startxref"))
	if i < 0 {
		return nil, fmt.Errorf("malformed PDF file: missing final startxref")
	}

	r := &Reader{
		data:      data,
		end:       end,
		objs:      make(map[objptr]object),
		objStms:   make(map[uint32]map[uint32]object),
		resolving: make(map[objptr]bool),
		fonts:     make(map[objptr]*font),
	}
	pos := tailOff + int64(i)
	b := newBuffer(data[pos:], pos)
	if b.readToken() != keyword("startxref") {
		return nil, fmt.Errorf("malformed PDF file: missing startxref")
	}
	startxref, ok := b.readToken().(int64)
	if !ok || startxref < 0 || startxref >= end {
		return nil, fmt.Errorf("malformed PDF file: startxref not followed by a valid offset")
	}
	b = newBuffer(data[startxref:], startxref)
	xref, trailerptr, trailer, err := readXref(r, b)
	if err != nil {
		return nil, err
	}
	r.xref = xref
	r.trailer = trailer
	r.trailerptr = trailerptr
	if trailer["Encrypt"] != nil {
		return nil, ErrEncrypted
	}
	return r, nil
}

// Trailer returns the file's Trailer value.
func (r *Reader) Trailer() Value {
	if r == nil {
		return Value{}
	}
	return Value{r, r.trailerptr, r.trailer}
}

func readXref(r *Reader, b *buffer) (xrefTable, objptr, dict, error) {
	tok := b.readToken()
	if tok == keyword("xref") {
		return readXrefTable(r, b)
	}
	if _, ok := tok.(int64); ok {
		b.unreadToken(tok)
		return readXrefStream(r, b)
	}
	return nil, objptr{}, nil, fmt.Errorf("malformed PDF: cross-reference table not found")
}

func readXrefStream(r *Reader, b *buffer) (xrefTable, objptr, dict, error) {
	obj1, err := b.readObject()
	if err != nil {
		return nil, objptr{}, nil, fmt.Errorf("malformed PDF: cross-reference stream: %v", err)
	}
	obj, ok := obj1.(objdef)
	if !ok {
		return nil, objptr{}, nil, fmt.Errorf("malformed PDF: cross-reference table not found")
	}
	strmptr := obj.ptr
	strm, ok := obj.obj.(stream)
	if !ok {
		return nil, objptr{}, nil, fmt.Errorf("malformed PDF: cross-reference table not found")
	}
	if strm.hdr["Type"] != name("XRef") {
		return nil, objptr{}, nil, fmt.Errorf("malformed PDF: xref stream does not have type XRef")
	}
	size, ok := strm.hdr["Size"].(int64)
	if !ok || size < 0 || size > maxObjects {
		return nil, objptr{}, nil, fmt.Errorf("malformed PDF: xref stream has no valid Size")
	}
	table := make(xrefTable)

	table, err = readXrefStreamData(r, strm, table, size)
	if err != nil {
		return nil, objptr{}, nil, fmt.Errorf("malformed PDF: %v", err)
	}

	seen := map[int64]bool{}
	for prevoff := strm.hdr["Prev"]; prevoff != nil; {
		off, ok := prevoff.(int64)
		if !ok || off < 0 || off >= r.end || seen[off] || len(seen) > maxXrefSections {
			return nil, objptr{}, nil, fmt.Errorf("malformed PDF: bad xref Prev offset")
		}
		seen[off] = true
		b := newBuffer(r.data[off:], off)
		obj1, err := b.readObject()
		if err != nil {
			return nil, objptr{}, nil, err
		}
		obj, ok := obj1.(objdef)
		if !ok {
			return nil, objptr{}, nil, fmt.Errorf("malformed PDF: xref prev stream not found")
		}
		prevstrm, ok := obj.obj.(stream)
		if !ok {
			return nil, objptr{}, nil, fmt.Errorf("malformed PDF: xref prev stream not found")
		}
		prevoff = prevstrm.hdr["Prev"]
		if prevstrm.hdr["Type"] != name("XRef") {
			return nil, objptr{}, nil, fmt.Errorf("malformed PDF: xref prev stream does not have type XRef")
		}
		psize, _ := prevstrm.hdr["Size"].(int64)
		if psize > size || psize < 0 {
			return nil, objptr{}, nil, fmt.Errorf("malformed PDF: xref prev stream larger than last stream")
		}
		if table, err = readXrefStreamData(r, prevstrm, table, psize); err != nil {
			return nil, objptr{}, nil, fmt.Errorf("malformed PDF: reading xref prev stream: %v", err)
		}
	}

	return table, strmptr, strm.hdr, nil
}

func readXrefStreamData(r *Reader, strm stream, table xrefTable, size int64) (xrefTable, error) {
	index, _ := strm.hdr["Index"].(array)
	if index == nil {
		index = array{int64(0), size}
	}
	if len(index)%2 != 0 {
		return nil, fmt.Errorf("invalid Index array")
	}
	ww, ok := strm.hdr["W"].(array)
	if !ok {
		return nil, fmt.Errorf("xref stream missing W array")
	}

	var w []int
	for _, x := range ww {
		i, ok := x.(int64)
		if !ok || i < 0 || i > 8 {
			return nil, fmt.Errorf("invalid W array")
		}
		w = append(w, int(i))
	}
	if len(w) < 3 {
		return nil, fmt.Errorf("invalid W array")
	}

	v := Value{r, objptr{}, strm}
	wtotal := w[0] + w[1] + w[2]
	if wtotal == 0 {
		return nil, fmt.Errorf("invalid W array")
	}
	data, err := v.data0()
	if err != nil {
		return nil, fmt.Errorf("reading xref stream: %v", err)
	}
	for len(index) > 0 {
		start, ok1 := index[0].(int64)
		n, ok2 := index[1].(int64)
		if !ok1 || !ok2 || start < 0 || n < 0 || start+n > maxObjects {
			return nil, fmt.Errorf("malformed Index pair")
		}
		index = index[2:]
		for i := 0; i < int(n); i++ {
			if len(data) < wtotal {
				return nil, fmt.Errorf("error reading xref stream: %v", io.ErrUnexpectedEOF)
			}
			buf := data[:wtotal]
			data = data[wtotal:]
			v1 := decodeInt(buf[0:w[0]])
			if w[0] == 0 {
				v1 = 1
			}
			v2 := decodeInt(buf[w[0] : w[0]+w[1]])
			v3 := decodeInt(buf[w[0]+w[1] : w[0]+w[1]+w[2]])
			x := int(start) + i
			if _, ok := table[uint32(x)]; ok {
				continue
			}
			switch v1 {
			case 0:
				table[uint32(x)] = xref{ptr: objptr{0, 65535}}
			case 1:
				table[uint32(x)] = xref{ptr: objptr{uint32(x), uint16(v3)}, offset: int64(v2)}
			case 2:
				table[uint32(x)] = xref{ptr: objptr{uint32(x), 0}, inStream: true, stream: objptr{uint32(v2), 0}, offset: int64(v3)}
			}
		}
	}

	return table, nil
}

func decodeInt(b []byte) int {
	x := 0
	for _, c := range b {
		x = x<<8 | int(c)
	}
	return x
}

func readXrefTable(r *Reader, b *buffer) (xrefTable, objptr, dict, error) {
	table, err := readXrefTableData(b, make(xrefTable))
	if err != nil {
		return nil, objptr{}, nil, fmt.Errorf("malformed PDF: %v", err)
	}

	res, err := b.readObject()
	if err != nil {
		return nil, objptr{}, nil, fmt.Errorf("malformed PDF: trailer: %v", err)
	}

	trailer, ok := res.(dict)
	if !ok {
		return nil, objptr{}, nil, fmt.Errorf("malformed PDF: xref table not followed by trailer dictionary")
	}

	seen := map[int64]bool{}
	for prevoff := trailer["Prev"]; prevoff != nil; {
		off, ok := prevoff.(int64)
		if !ok || off < 0 || off >= r.end || seen[off] || len(seen) > maxXrefSections {
			return nil, objptr{}, nil, fmt.Errorf("malformed PDF: bad xref Prev offset")
		}
		seen[off] = true
		b := newBuffer(r.data[off:], off)
		tok := b.readToken()
		if tok != keyword("xref") {
			return nil, objptr{}, nil, fmt.Errorf("malformed PDF: xref Prev does not point to xref")
		}
		table, err = readXrefTableData(b, table)
		if err != nil {
			return nil, objptr{}, nil, fmt.Errorf("malformed PDF: %v", err)
		}

		res, err := b.readObject()
		if err != nil {
			return nil, objptr{}, nil, err
		}
		trailer, ok := res.(dict)
		if !ok {
			return nil, objptr{}, nil, fmt.Errorf("malformed PDF: xref Prev table not followed by trailer dictionary")
		}
		prevoff = trailer["Prev"]
	}

	size, ok := trailer[name("Size")].(int64)
	if !ok {
		return nil, objptr{}, nil, fmt.Errorf("malformed PDF: trailer missing /Size entry")
	}

	for id := range table {
		if int64(id) >= size {
			delete(table, id)
		}
	}

	return table, objptr{}, trailer, nil
}

func readXrefTableData(b *buffer, table xrefTable) (xrefTable, error) {
	for {
		tok := b.readToken()
		if tok == keyword("trailer") {
			break
		}
		start, ok1 := tok.(int64)
		n, ok2 := b.readToken().(int64)
		if !ok1 || !ok2 || start < 0 || n < 0 || start+n > maxObjects {
			return nil, fmt.Errorf("malformed xref table")
		}
		for i := 0; i < int(n); i++ {
			off, ok1 := b.readToken().(int64)
			gen, ok2 := b.readToken().(int64)
			alloc, ok3 := b.readToken().(keyword)
			if !ok1 || !ok2 || !ok3 || alloc != keyword("f") && alloc != keyword("n") {
				return nil, fmt.Errorf("malformed xref table")
			}
			x := uint32(int(start) + i)
			if alloc == "n" && table[x].offset == 0 {
				table[x] = xref{ptr: objptr{x, uint16(gen)}, offset: int64(off)}
			}
		}
	}
	return table, nil
}

// A Value is a single PDF value, such as an integer, dictionary, or array.
// The zero Value is a PDF null (Kind() == Null, IsNull() = true).
type Value struct {
	r    *Reader
	ptr  objptr
	data interface{}
}

// IsNull reports whether the value is a null. It is equivalent to Kind() == Null.
func (v Value) IsNull() bool {
	return v.data == nil
}

// A ValueKind specifies the kind of data underlying a Value.
type ValueKind int

// The PDF value kinds.
const (
	Null ValueKind = iota
	Bool
	Integer
	Real
	String
	Name
	Dict
	Array
	Stream
)

// Kind reports the kind of value underlying v.
func (v Value) Kind() ValueKind {
	switch v.data.(type) {
	default:
		return Null
	case bool:
		return Bool
	case int64:
		return Integer
	case float64:
		return Real
	case string:
		return String
	case name:
		return Name
	case dict:
		return Dict
	case array:
		return Array
	case stream:
		return Stream
	}
}

// String returns a textual representation of the value v.
// Note that String is not the accessor for values with Kind() == String.
// To access such values, see RawString, Text, and TextFromUTF16.
func (v Value) String() string {
	return objfmt(v.data, 0)
}

func objfmt(x interface{}, depth int) string {
	if depth > 8 {
		return "..."
	}
	switch x := x.(type) {
	default:
		return fmt.Sprint(x)
	case string:
		if isPDFDocEncoded(x) {
			return strconv.Quote(pdfDocDecode(x))
		}
		if isUTF16(x) {
			return strconv.Quote(utf16Decode(x[2:]))
		}
		return strconv.Quote(x)
	case name:
		return "/" + string(x)
	case dict:
		var keys []string
		for k := range x {
			keys = append(keys, string(k))
		}
		sort.Strings(keys)
		var buf bytes.Buffer
		buf.WriteString("<<")
		for i, k := range keys {
			elem := x[name(k)]
			if i > 0 {
				buf.WriteString(" ")
			}
			buf.WriteString("/")
			buf.WriteString(k)
			buf.WriteString(" ")
			buf.WriteString(objfmt(elem, depth+1))
		}
		buf.WriteString(">>")
		return buf.String()

	case array:
		var buf bytes.Buffer
		buf.WriteString("[")
		for i, elem := range x {
			if i > 0 {
				buf.WriteString(" ")
			}
			buf.WriteString(objfmt(elem, depth+1))
		}
		buf.WriteString("]")
		return buf.String()

	case stream:
		return fmt.Sprintf("%v@%d", objfmt(x.hdr, depth+1), x.offset)

	case objptr:
		return fmt.Sprintf("%d %d R", x.id, x.gen)

	case objdef:
		return fmt.Sprintf("{%d %d obj}%v", x.ptr.id, x.ptr.gen, objfmt(x.obj, depth+1))
	}
}

// Bool returns v's boolean value.
// If v.Kind() != Bool, Bool returns false.
func (v Value) Bool() bool {
	x, _ := v.data.(bool)
	return x
}

// Int64 returns v's int64 value.
// If v.Kind() != Int64, Int64 returns 0 (a real is truncated).
func (v Value) Int64() int64 {
	switch x := v.data.(type) {
	case int64:
		return x
	case float64:
		if x > -1e18 && x < 1e18 {
			return int64(x)
		}
	}
	return 0
}

// Float64 returns v's float64 value, converting from integer if necessary.
// If v.Kind() != Float64 and v.Kind() != Int64, Float64 returns 0.
func (v Value) Float64() float64 {
	switch x := v.data.(type) {
	case float64:
		return x
	case int64:
		return float64(x)
	}
	return 0
}

// RawString returns v's string value.
// If v.Kind() != String, RawString returns the empty string.
func (v Value) RawString() string {
	x, _ := v.data.(string)
	return x
}

// Text returns v's string value interpreted as a “text string” (defined in the PDF spec)
// and converted to UTF-8.
// If v.Kind() != String, Text returns the empty string.
func (v Value) Text() string {
	x, ok := v.data.(string)
	if !ok {
		return ""
	}
	if isUTF16(x) {
		return utf16Decode(x[2:])
	}
	if len(x) >= 3 && x[0] == 0xef && x[1] == 0xbb && x[2] == 0xbf {
		return x[3:]
	}
	return pdfDocDecode(x)
}

// Name returns v's name value.
// If v.Kind() != Name, Name returns the empty string.
// The returned name does not include the leading slash:
// if v corresponds to the name written using the syntax /Helvetica,
// Name() == "Helvetica".
func (v Value) Name() string {
	x, _ := v.data.(name)
	return string(x)
}

// Key returns the value associated with the given name key in the dictionary v.
// Like the result of the Name method, the key should not include a leading slash.
// If v is a stream, Key applies to the stream's header dictionary.
// If v.Kind() != Dict and v.Kind() != Stream, Key returns a null Value.
func (v Value) Key(key string) Value {
	x, ok := v.data.(dict)
	if !ok {
		strm, ok := v.data.(stream)
		if !ok {
			return Value{}
		}
		x = strm.hdr
	}
	return v.r.resolve(v.ptr, x[name(key)])
}

// Keys returns a sorted list of the keys in the dictionary v.
// If v is a stream, Keys applies to the stream's header dictionary.
// If v.Kind() != Dict and v.Kind() != Stream, Keys returns nil.
func (v Value) Keys() []string {
	x, ok := v.data.(dict)
	if !ok {
		strm, ok := v.data.(stream)
		if !ok {
			return nil
		}
		x = strm.hdr
	}
	keys := []string{} // not nil
	for k := range x {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	return keys
}

// Index returns the i'th element in the array v.
// If v.Kind() != Array or if i is outside the array bounds,
// Index returns a null Value.
func (v Value) Index(i int) Value {
	x, ok := v.data.(array)
	if !ok || i < 0 || i >= len(x) {
		return Value{}
	}
	return v.r.resolve(v.ptr, x[i])
}

// Len returns the length of the array v.
// If v.Kind() != Array, Len returns 0.
func (v Value) Len() int {
	x, _ := v.data.(array)
	return len(x)
}

// refOf returns the object number that the entry key of the dictionary v
// refers to, or false when the entry is a direct object.
func (v Value) refOf(key string) (objptr, bool) {
	var x dict
	switch d := v.data.(type) {
	case dict:
		x = d
	case stream:
		x = d.hdr
	default:
		return objptr{}, false
	}
	p, ok := x[name(key)].(objptr)
	return p, ok
}

// resolve returns the value of x, following an indirect reference.
// Objects are parsed once and cached.
func (r *Reader) resolve(parent objptr, x interface{}) Value {
	if ptr, ok := x.(objptr); ok {
		if r == nil {
			return Value{}
		}
		obj, ok := r.objs[ptr]
		if !ok {
			if r.resolving[ptr] {
				return Value{} // a reference cycle through object streams
			}
			r.resolving[ptr] = true
			obj = r.load(ptr)
			delete(r.resolving, ptr)
			r.objs[ptr] = obj
		}
		x = obj
		parent = ptr
	}

	switch x := x.(type) {
	case nil, bool, int64, float64, name, dict, array, stream, string:
		return Value{r, parent, x}
	default:
		return Value{}
	}
}

// load parses the object ptr from the file or its object stream.
func (r *Reader) load(ptr objptr) object {
	xref, ok := r.xref[ptr.id]
	if !ok {
		return nil
	}
	if xref.ptr != ptr || !xref.inStream && xref.offset == 0 {
		return nil
	}
	if xref.inStream {
		objs := r.objStm(xref.stream.id, 0)
		if objs == nil {
			return nil
		}
		return objs[ptr.id]
	}
	if xref.offset < 0 || xref.offset >= r.end {
		return nil
	}
	b := newBuffer(r.data[xref.offset:], xref.offset)
	obj, err := b.readObject()
	if err != nil {
		return nil
	}
	def, ok := obj.(objdef)
	if !ok || def.ptr.id != ptr.id {
		return nil
	}
	if _, isPtr := def.obj.(objptr); isPtr {
		return nil
	}
	return def.obj
}

// objStm decodes the object stream id once and returns its objects by number.
func (r *Reader) objStm(id uint32, depth int) map[uint32]object {
	if objs, ok := r.objStms[id]; ok {
		return objs
	}
	r.objStms[id] = nil // guards against cycles
	if depth > 16 {
		return nil
	}
	strm := r.resolve(objptr{}, objptr{id, 0})
	if strm.Kind() != Stream || strm.Key("Type").Name() != "ObjStm" {
		return nil
	}
	n := strm.Key("N").Int64()
	first := strm.Key("First").Int64()
	data, err := strm.data0()
	if err != nil || first <= 0 || first > int64(len(data)) || n < 0 || n > int64(len(data)) {
		return nil
	}
	objs := make(map[uint32]object, n)
	if ext := strm.Key("Extends"); ext.Kind() == Stream && ext.ptr.id != id {
		for k, v := range r.objStm(ext.ptr.id, depth+1) {
			objs[k] = v
		}
	}
	hdr := newBuffer(data[:first], 0)
	for i := int64(0); i < n; i++ {
		id, ok1 := hdr.readToken().(int64)
		off, ok2 := hdr.readToken().(int64)
		if !ok1 || !ok2 {
			break
		}
		if off < 0 || first+off >= int64(len(data)) || id < 0 || id > maxObjects {
			continue
		}
		b := newBuffer(data[first+off:], 0)
		b.allowStream = false
		obj, err := b.readObject()
		if err != nil {
			continue
		}
		if _, isPtr := obj.(objptr); isPtr {
			continue
		}
		objs[uint32(id)] = obj
	}
	r.objStms[id] = objs
	return objs
}

// Reader returns the decoded data of the stream v.
// If v.Kind() != Stream, or the stream cannot be decoded, Reader returns a
// reader that fails with the reason.
func (v Value) Reader() io.ReadCloser {
	data, err := v.data0()
	if err != nil {
		return io.NopCloser(&errReader{err})
	}
	return io.NopCloser(bytes.NewReader(data))
}

type errReader struct{ err error }

func (e *errReader) Read([]byte) (int, error) { return 0, e.err }

// Data returns the decoded data of the stream v.
func (v Value) Data() ([]byte, error) {
	return v.data0()
}

func (v Value) data0() (out []byte, err error) {
	x, ok := v.data.(stream)
	if !ok {
		return nil, fmt.Errorf("stream not present")
	}
	raw, err := v.r.rawStream(x, v.Key("Length"))
	if err != nil {
		return nil, err
	}
	defer func() {
		v.r.decoded += int64(len(out))
		if v.r.decoded > maxTotalDecoded {
			out, err = nil, ErrTooMuchData
		}
	}()
	filter := v.Key("Filter")
	param := v.Key("DecodeParms")
	switch filter.Kind() {
	default:
		return nil, fmt.Errorf("unsupported filter %v", filter)
	case Null:
		return raw, nil
	case Name:
		return applyFilter(raw, filter.Name(), param)
	case Array:
		if filter.Len() > 8 {
			return nil, fmt.Errorf("too many filters")
		}
		for i := 0; i < filter.Len(); i++ {
			p := param
			if param.Kind() == Array {
				p = param.Index(i)
			}
			raw, err = applyFilter(raw, filter.Index(i).Name(), p)
			if err != nil {
				return nil, err
			}
		}
		return raw, nil
	}
}

// rawStream returns the undecoded bytes of x. A wrong /Length is repaired
// by looking for the endstream keyword.
func (r *Reader) rawStream(x stream, length Value) ([]byte, error) {
	start := x.offset
	if start < 0 || start > r.end {
		return nil, fmt.Errorf("malformed PDF: stream offset out of range")
	}
	n := length.Int64()
	if length.Kind() == Integer && n >= 0 && start+n <= r.end {
		rest := r.data[start+n:]
		// The data should be followed (after optional EOL) by endstream.
		k := 0
		for k < len(rest) && k < 4 && isSpace(rest[k]) {
			k++
		}
		if bytes.HasPrefix(rest[k:], []byte("endstream")) {
			return r.data[start : start+n], nil
		}
	}
	i := bytes.Index(r.data[start:], []byte("endstream"))
	if i < 0 {
		return nil, fmt.Errorf("malformed PDF: stream without endstream")
	}
	data := r.data[start : start+int64(i)]
	// Drop the end-of-line marker before endstream.
	if len(data) > 0 && data[len(data)-1] == '\n' {
		data = data[:len(data)-1]
	}
	if len(data) > 0 && data[len(data)-1] == '\r' {
		data = data[:len(data)-1]
	}
	return data, nil
}
