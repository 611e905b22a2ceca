package kpatch

import (
	"testing"

	"kpatch.dev/kpatch/pkg/replacement"
)

func TestReplacementFieldTypeReadsTheSchema(t *testing.T) {
	cases := []struct {
		apiVersion, kind string
		path             []string
		want             replacement.FieldType
	}{
		{"apps/v1", "Deployment", []string{"spec", "replicas"}, replacement.TypeInteger},
		{"apps/v1", "Deployment", []string{"metadata", "annotations", "version"}, replacement.TypeString},
		{"apps/v1", "Deployment", []string{"spec", "template", "spec", "containers", "0", "image"}, replacement.TypeString},
		{"apps/v1", "Deployment", []string{"spec", "template", "spec", "containers", "0", "ports", "1", "containerPort"}, replacement.TypeInteger},
		{"apps/v1", "Deployment", []string{"spec", "template", "spec", "containers", "0", "env", "0", "value"}, replacement.TypeString},
		{"apps/v1", "Deployment", []string{"spec", "paused"}, replacement.TypeBoolean},
		{"v1", "Service", []string{"spec", "ports", "0", "targetPort"}, replacement.TypeUnknown}, // int-or-string
		{"v1", "ConfigMap", []string{"data", "PORT"}, replacement.TypeString},
		{"apps/v1", "Deployment", []string{"spec", "nosuchfield"}, replacement.TypeUnknown},
		{"example.com/v1", "Widget", []string{"metadata", "labels", "app"}, replacement.TypeString},
		{"example.com/v1", "Widget", []string{"spec", "size"}, replacement.TypeUnknown},
	}
	for _, tc := range cases {
		if got := ReplacementFieldType(tc.apiVersion, tc.kind, tc.path); got != tc.want {
			t.Errorf("%s %s %v: %v, want %v", tc.apiVersion, tc.kind, tc.path, got, tc.want)
		}
	}
}
