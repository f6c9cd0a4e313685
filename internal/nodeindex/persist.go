package nodeindex

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
)

// Persistence. With Config.Dir set, an index keeps each part in two files
// of that directory, so that a restarted process reads a workspace from
// them instead of reading and tokenising every node again:
//   - <org>.vec, the int8 vector components, entry after entry, appended
//     as entries are loaded and read back by searches (vecStore);
//   - <org>.idx, everything else the part holds in memory (entries, names,
//     sign bits, scales, postings, statistics) and the versions it
//     reflects, rewritten once the part has gained a share snapshotShare
//     of its entries (at least snapshotMin) since the last time, when it
//     is evicted, and by Close. It is written to a temporary file, synced
//     and renamed over the old one, after the .vec file is synced.
//
// The database stays the record. A part read from its files catches up as
// any part does: node ids are never reused, so the rows above its highest
// id are those it lacks, and del_version says whether some it holds were
// deleted. An .idx file that fails its checksum or format, that names
// another embedder (a re-embedded database keeps its node ids), whose .vec file
// is shorter than it counts, or that reflects versions the database has
// not reached (a database restored from an older copy) is ignored, and the
// part is loaded from the database; a .vec file longer than its .idx counts
// (entries appended after the last snapshot) is cut back to it.
//
// One process owns a directory, by an exclusive lock (flock) on its lock
// file; an index whose directory another process holds keeps its parts in
// memory only, as an index without Dir does.
var (
	snapshotMin   = 20_000 // a variable for the tests
	snapshotShare = 1.0 / 16
)

// idxMagic begins every .idx file; the digit is the format's version.
const idxMagic = "papermem node index 4\n"

// postingsBlock is about the size of the blocks of postings in an .idx
// file, in bytes.
const postingsBlock = 1 << 16

// lockDir takes the lock of dir, creating it; ok is false when another
// process holds it.
func lockDir(dir string) (f *os.File, ok bool, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, false, fmt.Errorf("index directory: %w", err)
	}
	f, err = os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("index directory: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("index directory lock: %w", err)
	}
	return f, true, nil
}

// partFiles returns the paths of org's files in dir. A workspace id is a
// file name already (papermem.ValidWorkspaceID); any other string is
// written in hexadecimal, so that no id names a file outside dir.
func partFiles(dir, org string) (idx, vec string) {
	name := org
	if !safeName.MatchString(org) {
		name = "_" + hex.EncodeToString([]byte(org)) // no safe name begins with _
	}
	base := filepath.Join(dir, name)
	return base + ".idx", base + ".vec"
}

// safeName matches the workspace ids that are file names as they are.
var safeName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// unsaved reports whether p has entries its last snapshot lacks. The
// caller holds p.mu and the workspace's file lock.
func (p *Part) unsaved() bool { return len(p.ids) > p.saved }

// snapshotDue reports whether p has gained enough entries since its last
// snapshot to write another. The caller holds p.mu and the workspace's
// file lock.
func (p *Part) snapshotDue() bool {
	unsaved := len(p.ids) - p.saved
	return unsaved > 0 && unsaved >= max(snapshotMin, int(float64(len(p.ids))*snapshotShare))
}

// save writes p's .idx file, after syncing its .vec file. The caller holds
// org's file lock and p.mu (read).
func (x *Index) save(org string, p *Part) error {
	if !p.vecs.durable() || p.version < 0 {
		return nil
	}
	if err := p.vecs.f.Sync(); err != nil {
		return fmt.Errorf("index vector file: %w", err)
	}
	idx, _ := partFiles(x.dir, org)
	tmp, err := os.CreateTemp(x.dir, filepath.Base(idx)+".*")
	if err != nil {
		return fmt.Errorf("index snapshot: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, a no-op
	w := bufio.NewWriterSize(tmp, 1<<20)
	if err := p.encode(w, x.embedder); err != nil {
		tmp.Close()
		return fmt.Errorf("index snapshot: %w", err)
	}
	err = errors.Join(w.Flush(), tmp.Sync(), tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), idx)
	}
	if err == nil {
		err = syncDir(x.dir)
	}
	if err != nil {
		return fmt.Errorf("index snapshot: %w", err)
	}
	p.saved = len(p.ids)
	return nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

// restore fills the new part p of workspace org from its files, when they
// are sound and the database has reached the versions the .idx reflects
// (version, deletes: the database's now), and opens its vector file for
// the entries loaded next. When the vector file cannot be opened or cut
// back, the part is loaded from the database and kept in memory. The
// caller holds org's file lock and p.mu.
func (x *Index) restore(org string, p *Part, version, deletes int64) {
	idx, vec := partFiles(x.dir, org)
	f, err := os.OpenFile(vec, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		x.log.Error("search index: the workspace's index stays in memory", "workspace", org, "err", err)
		return
	}
	n := 0
	if ok := x.readIdx(idx, f, p, version, deletes); ok {
		n = len(p.ids)
	} else {
		p.reset()
	}
	if err := f.Truncate(int64(n) * int64(p.dim)); err != nil {
		f.Close()
		p.reset()
		x.log.Error("search index: the workspace's index stays in memory", "workspace", org, "err", err)
		return
	}
	p.vecs = newVecStore(p.dim, f, n)
	p.saved, p.fromFiles = n, n
}

// readIdx fills p from the .idx file at path, and reports whether it is
// sound, reflects versions the database has reached, and counts no more
// entries than vec holds.
func (x *Index) readIdx(path string, vec *os.File, p *Part, version, deletes int64) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || p.decode(bufio.NewReaderSize(f, 1<<20), st.Size(), x.embedder) != nil {
		return false
	}
	st, err = vec.Stat()
	return err == nil && p.version <= version && p.deletes <= deletes &&
		st.Size() >= int64(len(p.ids))*int64(p.dim)
}

// reset empties p, as before its first load, keeping its dimensions and
// its vector store.
func (p *Part) reset() {
	p.version, p.deletes, p.saved = -1, 0, 0
	p.ids, p.owners, p.copies, p.meta, p.dead, p.maxID, p.ndead = nil, nil, nil, nil, nil, 0, 0
	p.coarse, p.bits, p.scales, p.lex, p.labels = nil, nil, nil, lexicon{}, nil
	p.names, p.nameIDs = nil, nil
}

// encode writes p, whose vectors embedder made, in the .idx format: the
// magic, then the embedder's name and p's fields, then a CRC-32
// (Castagnoli) of everything before it.
func (p *Part) encode(w io.Writer, embedder string) error {
	e := &encoder{w: w, crc: crc32.New(castagnoli)}
	e.bytes([]byte(idxMagic))
	e.strings([]string{embedder})
	e.ints(int64(p.dim), int64(p.words), int64(p.coarseAt), p.version, p.deletes, p.maxID, int64(p.ndead), int64(len(p.ids)))
	put(e, p.ids)
	put(e, p.owners)
	put(e, p.copies)
	meta := make([]int32, 0, 5*len(p.meta))
	for _, m := range p.meta {
		meta = append(meta, m.label, m.kind, m.user, m.domain, m.sectionType)
	}
	put(e, meta)
	put(e, p.dead)
	put(e, p.coarse)
	put(e, p.bits)
	put(e, p.scales)
	e.strings(p.names)
	e.ints(int64(len(p.labels)))
	for c, st := range p.labels {
		e.ints(int64(c.user), int64(c.label), int64(st.docs), int64(st.tokens))
	}
	p.lex.encode(e)
	sum := e.crc.Sum32()
	if e.err == nil {
		e.err = binary.Write(w, binary.LittleEndian, sum)
	}
	return e.err
}

// decode reads what encode wrote, size bytes, into p, which must be new,
// and checks the checksum, p's dimensions and that embedder made the
// vectors (a database re-embedded with vectors of the same dimensions
// keeps its node ids).
func (p *Part) decode(r io.Reader, size int64, embedder string) error {
	crc := crc32.New(castagnoli)
	d := &decoder{r: io.TeeReader(r, crc), crc: crc, left: size}
	if string(d.bytes(len(idxMagic))) != idxMagic {
		return errors.New("not an index snapshot of this format")
	}
	if e := d.strings(); d.err == nil && (len(e) != 1 || e[0] != embedder) {
		return errors.New("index snapshot of another embedder's vectors")
	}
	var dim, words, coarseAt, ndead, n int64
	d.ints(&dim, &words, &coarseAt, &p.version, &p.deletes, &p.maxID, &ndead, &n)
	if d.err == nil && (dim != int64(p.dim) || words != int64(p.words) || coarseAt != int64(p.coarseAt) || n < 0 || n > 1<<40) {
		return errors.New("index snapshot of other dimensions")
	}
	p.ndead = int(ndead)
	p.ids = get[int64](d, int(n))
	p.owners = get[int64](d, int(n))
	p.copies = get[uint64](d, int(n))
	meta := get[int32](d, 5*int(n))
	if d.err == nil {
		p.meta = make([]nodeMeta, n)
		for i := range p.meta {
			m := meta[5*i : 5*i+5]
			p.meta[i] = nodeMeta{m[0], m[1], m[2], m[3], m[4]}
		}
	}
	p.dead = get[bool](d, int(n))
	p.coarse = get[uint64](d, int(n)*p.coarseN)
	p.bits = get[uint64](d, int(n)*(p.words-p.coarseN))
	p.scales = get[float32](d, int(n))
	p.names = d.strings()
	p.nameIDs = make(map[string]int32, len(p.names))
	for i, s := range p.names {
		p.nameIDs[s] = int32(i)
	}
	var labels int64
	d.ints(&labels)
	p.labels = map[collection]lexStats{}
	for range min(labels, 1<<20) {
		var user, label, docs, tokens int64
		d.ints(&user, &label, &docs, &tokens)
		p.labels[collection{int32(user), int32(label)}] = lexStats{int(docs), int(tokens)}
	}
	p.lex.decode(d, int(n))
	want := d.crc.Sum32()
	var sum uint32
	if d.err == nil {
		d.err = binary.Read(r, binary.LittleEndian, &sum) // not in the checksum
	}
	if d.err != nil {
		return d.err
	}
	if sum != want {
		return errors.New("index snapshot checksum mismatch")
	}
	if len(p.ids) > 0 && p.ids[len(p.ids)-1] != p.maxID {
		return errors.New("index snapshot inconsistent")
	}
	return nil
}

// encode writes the lexicon's terms, postings, lengths and statistics.
func (l *lexicon) encode(e *encoder) {
	terms := make([]string, len(l.postings))
	for t, id := range l.terms {
		terms[id] = t
	}
	e.strings(terms)
	offsets := make([]int64, 0, len(l.postings)+1)
	var total int64
	for _, ps := range l.postings {
		offsets = append(offsets, total)
		total += int64(len(ps))
	}
	offsets = append(offsets, total)
	put(e, offsets)
	// The postings, term after term, as blocks of uvarints: each entry
	// less the one before it in the same term (the first as it is), then
	// its count.
	block := make([]byte, 0, postingsBlock+2*binary.MaxVarintLen64)
	flush := func() {
		e.ints(int64(len(block)))
		e.bytes(block)
		block = block[:0]
	}
	for _, ps := range l.postings {
		prev := int32(0)
		for _, x := range ps {
			block = binary.AppendUvarint(block, uint64(x.entry-prev))
			block = binary.AppendUvarint(block, uint64(x.tf))
			prev = x.entry
			if len(block) >= postingsBlock {
				flush()
			}
		}
	}
	flush()
	put(e, l.length)
	e.ints(int64(len(l.stats)))
	for user, st := range l.stats {
		e.strings([]string{user})
		e.ints(int64(st.docs), int64(st.tokens))
	}
}

// decode reads what encode wrote, for a part of n entries.
func (l *lexicon) decode(d *decoder, n int) {
	terms := d.strings()
	offsets := get[int64](d, len(terms)+1)
	if d.err != nil {
		return
	}
	total := offsets[len(terms)]
	if total < 0 || total > d.left/2 { // a posting takes two bytes at least
		d.err = errors.New("index snapshot postings out of range")
		return
	}
	flat := make([]posting, total)
	term, prev := 0, int32(0)
	for i := int64(0); i < total && d.err == nil; {
		var size int64
		d.ints(&size)
		block := d.bytes(int(size))
		for len(block) > 0 && i < total && d.err == nil {
			for term < len(terms) && offsets[term+1] <= i { // a new term: its first entry as it is
				term, prev = term+1, 0
			}
			delta, k := binary.Uvarint(block)
			tf, j := binary.Uvarint(block[max(k, 0):])
			if k <= 0 || j <= 0 || delta > uint64(n) || tf > math.MaxUint16 {
				d.err = errors.New("index snapshot postings malformed")
				return
			}
			block = block[k+j:]
			prev += int32(delta)
			flat[i] = posting{entry: prev, tf: uint16(tf)} // n is set once lengths are read
			i++
		}
		if len(block) > 0 || size == 0 && i < total {
			d.err = errors.New("index snapshot postings malformed")
		}
	}
	if d.err != nil {
		return
	}
	l.count = total
	l.terms = make(map[string]int32, len(terms))
	l.postings = make([][]posting, len(terms))
	for id, t := range terms {
		lo, hi := offsets[id], offsets[id+1]
		if lo < 0 || hi < lo || hi > total {
			d.err = errors.New("index snapshot postings out of range")
			return
		}
		l.terms[t] = int32(id)
		l.postings[id] = flat[lo:hi:hi] // an append copies: the next term's postings follow
	}
	l.length = get[int32](d, n)
	var users int64
	d.ints(&users)
	l.stats = map[string]lexStats{}
	for range min(users, 1<<20) {
		user := d.strings()
		var docs, tokens int64
		d.ints(&docs, &tokens)
		if len(user) == 1 {
			l.stats[user[0]] = lexStats{int(docs), int(tokens)}
		}
	}
	l.tokens = map[string]int32{}
	if len(l.length) != n {
		return
	}
	for id, ps := range l.postings {
		l.bound(int32(id), nil) // a term whose entries are all gone keeps a bound
		for i, x := range ps {
			if x.entry < 0 || int(x.entry) >= n {
				d.err = errors.New("index snapshot posting out of range")
				return
			}
			ps[i] = newPosting(x.entry, int32(x.tf), l.length[x.entry])
			l.bound(int32(id), &ps[i])
		}
	}
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// encoder writes little-endian values and keeps a checksum of them; its
// first error sticks.
type encoder struct {
	w   io.Writer
	crc interface {
		io.Writer
		Sum32() uint32
	}
	err error
}

func (e *encoder) bytes(b []byte) {
	if e.err != nil {
		return
	}
	if _, e.err = e.w.Write(b); e.err == nil {
		e.crc.Write(b)
	}
}

func (e *encoder) ints(vs ...int64) { put(e, vs) }

// strings writes the count of ss, then each one's length and bytes.
func (e *encoder) strings(ss []string) {
	e.ints(int64(len(ss)))
	for _, s := range ss {
		e.ints(int64(len(s)))
		e.bytes([]byte(s))
	}
}

// put writes the fixed-size values xs, a chunk at a time.
func put[T any](e *encoder, xs []T) {
	const chunk = 1 << 16
	for len(xs) > 0 && e.err == nil {
		n := min(len(xs), chunk)
		b, err := binary.Append(nil, binary.LittleEndian, xs[:n])
		if err != nil {
			e.err = err
			return
		}
		e.bytes(b)
		xs = xs[n:]
	}
}

// decoder reads what an encoder wrote, checksumming it; its first error
// sticks.
type decoder struct {
	r    io.Reader
	crc  interface{ Sum32() uint32 }
	left int64 // bytes not read yet, which bounds what a count may claim
	err  error
}

// claim checks that n values of size bytes can still be read, and counts
// them read.
func (d *decoder) claim(n, size int) bool {
	if d.err != nil {
		return false
	}
	if n < 0 || int64(n) > d.left/int64(size) {
		d.err = errors.New("index snapshot truncated or count out of range")
		return false
	}
	d.left -= int64(n) * int64(size)
	return true
}

func (d *decoder) bytes(n int) []byte {
	if !d.claim(n, 1) {
		return nil
	}
	b := make([]byte, n)
	_, d.err = io.ReadFull(d.r, b)
	return b
}

func (d *decoder) ints(vs ...*int64) {
	xs := get[int64](d, len(vs))
	if d.err == nil {
		for i, v := range vs {
			*v = xs[i]
		}
	}
}

// strings reads what encoder.strings wrote.
func (d *decoder) strings() []string {
	var n int64
	d.ints(&n)
	if n < 0 || n > d.left/8 {
		d.claim(-1, 1)
		return nil
	}
	out := make([]string, 0, n)
	for range n {
		var size int64
		d.ints(&size)
		b := d.bytes(int(size))
		if d.err != nil {
			return nil
		}
		out = append(out, string(b))
	}
	return out
}

// get reads n fixed-size values, a chunk at a time.
func get[T any](d *decoder, n int) []T {
	var zero T
	if !d.claim(n, binary.Size(zero)) {
		return nil
	}
	const chunk = 1 << 16
	out := make([]T, n)
	for i := 0; i < n && d.err == nil; i += chunk {
		d.err = binary.Read(d.r, binary.LittleEndian, out[i:min(n, i+chunk)])
	}
	if d.err != nil {
		return nil
	}
	return out
}
