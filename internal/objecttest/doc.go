// Package objecttest makes the objects of property tests and fuzz seeds:
// random Deployments and custom resources of odd shape, changes to them,
// and manifests written as people write them.
package objecttest
