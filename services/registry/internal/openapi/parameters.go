package openapi

import "k8s.io/kube-openapi/pkg/common"

// The parameters kube documents on resource operations. kubectl reads at
// least one of them: it leaves validation to the server only when it finds
// fieldValidation on the PATCH operation of the kind it sends.

func query(name, dataType, description string) param {
	return param{name: name, dataType: dataType, kind: common.QueryParameterKind, description: description}
}

var (
	paramPretty = query("pretty", "string",
		"If 'true', the response is pretty printed.")
	paramDryRun = query("dryRun", "string",
		"When present, the request is validated and admitted but nothing is persisted. "+
			"The only valid value is All, which runs every dry-run stage.")
	paramFieldManager = query("fieldManager", "string",
		"Name of the actor making the change, recorded in managedFields. At most 128 printable characters. "+
			"Required for apply patches, optional otherwise.")
	paramFieldValidation = query("fieldValidation", "string",
		"What the server does with unknown or duplicate fields in the body: Ignore drops them silently, "+
			"Warn drops them and returns a warning for each (the default), Strict rejects the request with BadRequest.")
	paramForce = query("force", "boolean",
		"For apply patches only: take ownership of fields other managers own instead of failing with a conflict.")

	paramLabelSelector = query("labelSelector", "string",
		"Only objects whose labels match this selector. Defaults to everything.")
	paramFieldSelector = query("fieldSelector", "string",
		"Only objects whose fields match this selector. Defaults to everything.")
	paramLimit = query("limit", "integer",
		"The most objects to return in one response. When more exist, the list's metadata.continue holds "+
			"a token for the next page.")
	paramContinue = query("continue", "string",
		"The token from a previous list response with limit set, to fetch the next page. It expires with "+
			"the revision it was issued at, after which the server answers 410 Gone.")
	paramResourceVersion = query("resourceVersion", "string",
		"Which revision to serve: with resourceVersionMatch, exactly or not older than it; for a watch, "+
			"changes after it. Empty means the most recent; \"0\" means any revision.")
	paramResourceVersionMatch = query("resourceVersionMatch", "string",
		"How resourceVersion applies to a list: Exact or NotOlderThan. Only valid with resourceVersion set.")
	paramWatch = query("watch", "boolean",
		"Stream add, update and delete events for the described objects instead of listing them.")
	paramAllowWatchBookmarks = query("allowWatchBookmarks", "boolean",
		"Ask for BOOKMARK events, which carry only a resourceVersion, so a watch can resume without relisting. "+
			"Servers may ignore it.")
	paramSendInitialEvents = query("sendInitialEvents", "boolean",
		"Start a watch with an ADDED event for every existing object, then a bookmark marking the end of them. "+
			"Requires resourceVersionMatch=NotOlderThan.")
	paramTimeoutSeconds = query("timeoutSeconds", "integer",
		"How long a list or watch call may last, whether or not anything happens.")

	paramGracePeriodSeconds = query("gracePeriodSeconds", "integer",
		"Seconds before the object is deleted; zero means at once. Empty means the type's default.")
	paramPropagationPolicy = query("propagationPolicy", "string",
		"How dependents are garbage collected: Orphan, Background or Foreground.")
	paramOrphanDependents = query("orphanDependents", "boolean",
		"Deprecated: use propagationPolicy. Whether dependents are orphaned rather than deleted.")
)

// listParams are the parameters of list and watch operations.
var listParams = []common.Parameter{
	paramAllowWatchBookmarks, paramContinue, paramFieldSelector, paramLabelSelector, paramLimit,
	paramResourceVersion, paramResourceVersionMatch, paramSendInitialEvents, paramTimeoutSeconds, paramWatch,
}

// writeParams are the parameters of create and replace.
var writeParams = []common.Parameter{paramDryRun, paramFieldManager, paramFieldValidation}

// patchParams are the parameters of patch: those of a write, and force for
// server-side apply.
var patchParams = []common.Parameter{paramDryRun, paramFieldManager, paramFieldValidation, paramForce}

// deleteParams are the parameters of deleting one object.
var deleteParams = []common.Parameter{paramDryRun, paramGracePeriodSeconds, paramOrphanDependents, paramPropagationPolicy}

// deleteCollectionParams are the parameters of deleting a collection: a
// delete's and a list's, less the watch-only ones.
var deleteCollectionParams = []common.Parameter{
	paramContinue, paramDryRun, paramFieldSelector, paramGracePeriodSeconds, paramLabelSelector, paramLimit,
	paramOrphanDependents, paramPropagationPolicy, paramResourceVersion, paramResourceVersionMatch,
	paramSendInitialEvents, paramTimeoutSeconds,
}

// pathParam is a required path parameter such as {namespace} or {name}.
func pathParam(name, description string) param {
	return param{name: name, dataType: "string", kind: common.PathParameterKind, required: true, description: description}
}

// bodyParam is the request body; its definition is the route's body model.
func bodyParam(required bool) param {
	return param{name: "body", kind: common.BodyParameterKind, required: required}
}
