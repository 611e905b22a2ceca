package main

import (
	"context"
	"errors"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// mutation returns the policy's mutation of the change as patchType.
func mutation(patchType admissionregistrationv1.PatchType) (admissionregistrationv1.Mutation, error) {
	switch patchType {
	case admissionregistrationv1.PatchTypeJSONPatch:
		return admissionregistrationv1.Mutation{
			PatchType: patchType,
			JSONPatch: &admissionregistrationv1.JSONPatch{Expression: policyJSONPatch},
		}, nil
	case admissionregistrationv1.PatchTypeApplyConfiguration:
		return admissionregistrationv1.Mutation{
			PatchType:          patchType,
			ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: policyApplyConfiguration},
		}, nil
	}
	return admissionregistrationv1.Mutation{}, fmt.Errorf("%w: %q, want %s or %s", errPatchType, patchType,
		admissionregistrationv1.PatchTypeJSONPatch, admissionregistrationv1.PatchTypeApplyConfiguration)
}

// errPatchType is returned for a policy patch type other than JSONPatch
// and ApplyConfiguration.
var errPatchType = errors.New("unknown MutatingAdmissionPolicy patch type")

// installPolicy creates the MutatingAdmissionPolicy that makes the change
// with a mutation of patchType, and its binding to namespace ns only.
// admissionregistration.k8s.io/v1 serves the kind, on by default, since
// Kubernetes 1.36: no feature gate or runtime-config is needed.
func installPolicy(ctx context.Context, c client.Client, ns string, patchType admissionregistrationv1.PatchType) error {
	m, err := mutation(patchType)
	if err != nil {
		return err
	}
	fail := admissionregistrationv1.Fail
	policy := &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "bench-change"},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
						Rule: admissionregistrationv1.Rule{
							APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"},
						},
					},
				}},
			},
			// The registry file's target is deployment.web: the same object.
			MatchConditions: []admissionregistrationv1.MatchCondition{{
				Name: "web", Expression: fmt.Sprintf("object.metadata.name == %q", deploymentName),
			}},
			Mutations:          []admissionregistrationv1.Mutation{m},
			FailurePolicy:      &fail,
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
		},
	}
	if err := c.Create(ctx, policy); err != nil {
		return fmt.Errorf("creating the MutatingAdmissionPolicy (admissionregistration.k8s.io/v1): %w", err)
	}
	binding := &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "bench-change"},
		Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{
			PolicyName: policy.Name,
			MatchResources: &admissionregistrationv1.MatchResources{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
			},
		},
	}
	if err := c.Create(ctx, binding); err != nil {
		return fmt.Errorf("creating the MutatingAdmissionPolicyBinding: %w", err)
	}
	return nil
}
