// Package listalign aligns the items of two lists as a line diff aligns
// two texts: equal items are kept, and the others paired in place,
// deleted or inserted; items that a key identifies (a name, a merge key)
// align by it. The diff generator and the YAML writer both follow its
// steps, so that an item is the same item to both.
package listalign
