package kpatch

import (
	"testing"

	"kpatch.dev/kpatch/pkg/fieldtype"
)

func TestReplacementFieldTypeReadsTheSchema(t *testing.T) {
	cases := []struct {
		apiVersion, kind string
		path             []string
		want             fieldtype.Type
	}{
		{"apps/v1", "Deployment", []string{"spec", "replicas"}, fieldtype.Integer},
		{"apps/v1", "Deployment", []string{"metadata", "annotations", "version"}, fieldtype.String},
		{"apps/v1", "Deployment", []string{"spec", "template", "spec", "containers", "0", "image"}, fieldtype.String},
		{"apps/v1", "Deployment", []string{"spec", "template", "spec", "containers", "0", "ports", "1", "containerPort"}, fieldtype.Integer},
		{"apps/v1", "Deployment", []string{"spec", "template", "spec", "containers", "0", "env", "0", "value"}, fieldtype.String},
		{"apps/v1", "Deployment", []string{"spec", "paused"}, fieldtype.Boolean},
		{"v1", "Service", []string{"spec", "ports", "0", "targetPort"}, fieldtype.Unknown}, // int-or-string
		{"v1", "ConfigMap", []string{"data", "PORT"}, fieldtype.String},
		{"apps/v1", "Deployment", []string{"spec", "nosuchfield"}, fieldtype.Unknown},
		{"example.com/v1", "Widget", []string{"metadata", "labels", "app"}, fieldtype.String},
		{"example.com/v1", "Widget", []string{"spec", "size"}, fieldtype.Unknown},
	}
	for _, tc := range cases {
		if got := ReplacementFieldType(tc.apiVersion, tc.kind, tc.path); got != tc.want {
			t.Errorf("%s %s %v: %v, want %v", tc.apiVersion, tc.kind, tc.path, got, tc.want)
		}
	}
}
