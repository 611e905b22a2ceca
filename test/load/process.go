package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kpatch.dev/kpatch/test/cluster"
)

// clockTicks is the unit of /proc/<pid>/stat's CPU times (USER_HZ), 100
// on every Linux architecture.
const clockTicks = 100

// cpuSeconds is the CPU time (user and system) process pid has used.
func cpuSeconds(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// the fields after the command name, which is in parentheses
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(fields))
	}
	// utime and stime, fields 14 and 15 of the whole line
	utime, err1 := strconv.ParseFloat(fields[11], 64)
	stime, err2 := strconv.ParseFloat(fields[12], 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %q %q", pid, fields[11], fields[12])
	}
	return (utime + stime) / clockTicks, nil
}

// residentBytes is the resident set size of process pid.
func residentBytes(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no VmRSS", pid)
}

// extraRegistry is n files in ConfigMaps of 100, each targeting
// Deployments the load's request is not: a third by a literal name, a
// third by a name prefix, a third by a namespace, each setting an
// annotation of its own.
func extraRegistry(n int) []*corev1.ConfigMap {
	var cms []*corev1.ConfigMap
	for c := 0; c*100 < n; c++ {
		data := map[string]string{}
		for k := 0; k < 100 && c*100+k < n; k++ {
			i := c*100 + k
			target := [...]string{"deployment.app-%d", "deployment.app-%d-*", "team-%d/deployment.*"}[i%3]
			// a field of its own: no two files conflict
			data[fmt.Sprintf("s%05d.kpatch", i)] = fmt.Sprintf("["+target+"]\nannotations[example.com/s%05d]: \"on\"\n", i, i)
		}
		cms = append(cms, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("extra-%03d", c), Namespace: cluster.RegistryNamespace,
				Labels: map[string]string{"kpatch.dev/registry": "true"}},
			Data: data,
		})
	}
	return cms
}
