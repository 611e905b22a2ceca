// Package filesource reads the files that the command line names: files,
// directories (the files they give, as kubectl takes manifests from -f
// DIR) and standard input ("-"), named in messages as the user wrote them.
package filesource
