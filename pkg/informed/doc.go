// Package informed holds the cluster objects that the webhook's handler
// reads at admission, kept current from informers and read without a
// lock or a call to the API server: the Namespaces (InformedNamespaces,
// each version viewed once: NamespaceView) and the source ConfigMaps of
// replacements (SourceConfigMaps), of the namespaces opted in only and
// within limits per namespace.
package informed
