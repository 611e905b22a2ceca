// Package rules keeps the rules of the webhook's MutatingWebhookConfiguration
// to what the registry targets (managed rules): it resolves the targets of
// the registry's files against the resources the API server serves
// (ResolveRules) and writes the rules whenever they differ (RulesKeeper),
// with an Event on the ConfigMaps of targets that no served kind matches.
package rules
