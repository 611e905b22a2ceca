package objectjson

const (
	// listChunk is how many items a chunk of a listSlab holds.
	listChunk = 512
	// maxSlabList is the longest list cut from a slab; a longer one is
	// made for itself.
	maxSlabList = listChunk / 8
	// maxSlabChunks is how many chunks a pooled Maps may hold; one whose
	// object took more is dropped.
	maxSlabChunks = 64
)

// listSlab lends the lists of one admitted object that the engine copies
// and builds (Maps.List), cut from chunks of listChunk items, and takes
// them back, emptied, with the object's maps: the lists of a request cost
// no allocation once its chunks are made. A list is cut with its capacity
// clipped to its room, so that an append past it makes a new list rather
// than write over the next one. Lending is sound for the reason lending
// the maps is (Maps).
type listSlab struct {
	// chunks[:cur+1] are being cut; the length of each is what is cut.
	chunks [][]any
	cur    int
}

// cut returns an empty list with room for n items, 0 < n <= maxSlabList.
func (s *listSlab) cut(n int) []any {
	if len(s.chunks) == 0 {
		s.chunks = append(s.chunks, make([]any, 0, listChunk))
	}
	c := s.chunks[s.cur]
	if cap(c)-len(c) < n {
		s.cur++
		if s.cur == len(s.chunks) {
			s.chunks = append(s.chunks, make([]any, 0, listChunk))
		}
		c = s.chunks[s.cur]
	}
	s.chunks[s.cur] = c[:len(c)+n]
	return c[len(c) : len(c) : len(c)+n]
}

// empty empties the chunks, to be cut again (their items, which the
// request's object held, cleared), and says how many chunks s holds.
func (s *listSlab) empty() (held int) {
	for i := range s.chunks[:min(s.cur+1, len(s.chunks))] {
		clear(s.chunks[i])
		s.chunks[i] = s.chunks[i][:0]
	}
	s.cur = 0
	return len(s.chunks)
}
