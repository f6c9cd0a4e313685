package pdf

// A Page is one page of a PDF file, with its inherited attributes resolved.
type Page struct {
	V         Value      // the page dictionary
	Resources Value      // resources, inherited from the page tree when absent
	MediaBox  [4]float64 // llx, lly, urx, ury
	Rotate    int        // degrees, a multiple of 90
}

// maxPages bounds the page tree walk.
const maxPages = 100000

// Pages returns the pages of the document in order. The page tree is
// walked once; cycles and absurd depths end the walk.
func (r *Reader) Pages() []Page {
	root := r.Trailer().Key("Root").Key("Pages")
	var pages []Page
	seen := map[objptr]bool{}
	var walk func(node Value, res Value, box [4]float64, rot int, depth int)
	walk = func(node Value, res Value, box [4]float64, rot int, depth int) {
		if depth > 64 || len(pages) >= maxPages || node.Kind() != Dict {
			return
		}
		if node.ptr != (objptr{}) {
			if seen[node.ptr] {
				return
			}
			seen[node.ptr] = true
		}
		if v := node.Key("Resources"); v.Kind() == Dict {
			res = v
		}
		if v := node.Key("MediaBox"); v.Kind() == Array && v.Len() == 4 {
			for i := 0; i < 4; i++ {
				box[i] = v.Index(i).Float64()
			}
		}
		if v := node.Key("Rotate"); v.Kind() == Integer {
			rot = int(v.Int64())
		}
		kids := node.Key("Kids")
		typ := node.Key("Type").Name()
		if typ == "Page" || typ != "Pages" && kids.Kind() != Array {
			pages = append(pages, Page{V: node, Resources: res, MediaBox: box, Rotate: ((rot % 360) + 360) % 360})
			return
		}
		for i := 0; i < kids.Len(); i++ {
			walk(kids.Index(i), res, box, rot, depth+1)
		}
	}
	walk(root, Value{}, [4]float64{0, 0, 612, 792}, 0, 0)
	return pages
}
