package kpatch

import yaml "go.yaml.in/yaml/v3"

// MaxAliasNodes is the most nodes that the aliases of a YAML patch file
// may add to it, counting a node each time an alias repeats it: a few
// kilobytes of aliases that refer to aliases cannot turn into gigabytes.
const MaxAliasNodes = 100_000

// aliasCounter counts the nodes aliases add to a YAML document.
type aliasCounter struct {
	sizes map[*yaml.Node]int // nodes under a node, itself included, aliases expanded
	added int
}

// checkAliases walks a document in order and reports the alias at which
// its aliases add more than MaxAliasNodes nodes.
func checkAliases(doc *yaml.Node) *problem {
	c := &aliasCounter{sizes: map[*yaml.Node]int{}}
	return c.walk(doc)
}

func (c *aliasCounter) walk(n *yaml.Node) *problem {
	if n.Kind == yaml.AliasNode {
		if n.Alias != nil {
			c.added += c.size(n.Alias)
		}
		if c.added > MaxAliasNodes {
			return errorf(ErrLimit, "aliases add more than %d nodes to the file; write the values out or use fewer aliases", MaxAliasNodes).at(n.Line, n.Column)
		}
		return nil
	}
	for _, child := range n.Content {
		if err := c.walk(child); err != nil {
			return err
		}
	}
	return nil
}

// size is how many nodes n stands for, aliases expanded; it stops
// counting past MaxAliasNodes. An alias that contains itself counts once.
func (c *aliasCounter) size(n *yaml.Node) int {
	if s, ok := c.sizes[n]; ok {
		return s
	}
	c.sizes[n] = 1 // while counting: an alias to an ancestor adds one node
	s := 1
	for _, child := range n.Content {
		if child.Kind == yaml.AliasNode && child.Alias != nil {
			child = child.Alias
		}
		if s += c.size(child); s > MaxAliasNodes {
			s = MaxAliasNodes + 1
			break
		}
	}
	c.sizes[n] = s
	return s
}
