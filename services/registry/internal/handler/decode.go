package handler

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// maxBodyBytes is the largest request body accepted, as kube-apiserver's
// 3 MiB limit.
const maxBodyBytes = 3 << 20

// maxDepth bounds how deeply a body may nest, so an absurd document is a
// clear 400 and not a deep recursion.
const maxDepth = 100

// readBody reads a request body, refusing one over maxBodyBytes with 413.
func readBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	if err != nil {
		return nil, apierrors.NewBadRequest("reading the request body: " + err.Error())
	}
	if len(body) > maxBodyBytes {
		return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", maxBodyBytes))
	}
	return body, nil
}

// bodyJSON converts a body in any accepted media type to JSON.
func bodyJSON(media string, body []byte, gvkInfo *resource.Info) ([]byte, []error, error) {
	switch media {
	case mediaJSON:
		return body, nil, nil
	case mediaYAML:
		if err := checkYAMLExpansion(body, maxBodyBytes); err != nil {
			return nil, nil, err
		}
		data, err := yaml.YAMLToJSONStrict(body)
		if err == nil {
			return data, nil, nil
		}
		data, err2 := yaml.YAMLToJSON(body)
		if err2 != nil {
			return nil, nil, apierrors.NewBadRequest("the body is not valid YAML: " + err2.Error())
		}
		return data, []error{err}, nil
	case mediaProtobuf:
		obj, ok := resource.Typed(gvkInfo.GroupVersionKind())
		if !ok {
			return nil, nil, unsupportedMedia(media)
		}
		decoded, _, err := protobufSerializer.Decode(body, nil, obj)
		if err != nil {
			return nil, nil, apierrors.NewBadRequest("the body is not a valid protobuf object: " + err.Error())
		}
		data, err := utiljson.Marshal(decoded)
		return data, nil, err
	}
	return nil, nil, unsupportedMedia(media)
}

// unsupportedMedia is 415, on which client-go falls back to JSON.
func unsupportedMedia(media string) error {
	return apierrors.NewGenericServerResponse(http.StatusUnsupportedMediaType, "", schema.GroupResource{}, "",
		fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf (got %s)", media), 0, false)
}

// decodeObject reads a request body as an object of info's kind. Unknown and
// duplicate fields are reported as the fieldValidation mode says: errors
// under Strict, warnings otherwise.
func decodeObject(info *resource.Info, media string, body []byte, mode string) (*unstructured.Unstructured, []string, error) {
	data, strictErrs, err := bodyJSON(media, body, info)
	if err != nil {
		return nil, nil, err
	}
	obj, moreErrs, err := objectFromJSON(info, data)
	if err != nil {
		return nil, nil, err
	}
	warnings, err := fieldProblems(mode, append(strictErrs, moreErrs...))
	if err != nil {
		// Kube says which kind the body could not be read as.
		err = apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %s", info.Kind, info.Version, info.Kind, err.Error()))
	}
	return obj, warnings, err
}

// objectFromJSON parses JSON as an object of info's kind: apiVersion and kind
// must match (or be absent), and built-in kinds go through their Go type,
// which drops unknown fields and normalises values exactly as
// kube-apiserver's decoding does.
func objectFromJSON(info *resource.Info, data []byte) (*unstructured.Unstructured, []error, error) {
	typed, ok := resource.Typed(info.GroupVersionKind())
	if !ok {
		obj, _, strictErrs, err := parseObject(info, data)
		if err == nil && info.Prune != nil {
			for _, path := range info.Prune(obj) {
				strictErrs = append(strictErrs, fmt.Errorf("unknown field %q", path))
			}
		}
		return obj, strictErrs, err
	}
	if err := checkDepth(data); err != nil {
		return nil, nil, err
	}
	strictErrs, err := kjson.UnmarshalStrict(data, typed)
	if err != nil {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("the body is not a valid %s: %v", info.Kind, err))
	}
	norm, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return nil, nil, err
	}
	obj := &unstructured.Unstructured{Object: norm}
	if err := checkKind(info, obj); err != nil {
		return nil, nil, err
	}
	return obj, strictErrs, nil
}

// applyIntent parses a server-side apply body. Unlike a stored object it is
// kept as the caller wrote it, since every field it names is a field the
// caller claims; unknown fields are still reported.
func applyIntent(info *resource.Info, data []byte) (*unstructured.Unstructured, []error, error) {
	obj, _, strictErrs, err := parseObject(info, data)
	if err == nil && info.Prune != nil {
		// Reported only: the intent keeps what the caller wrote, and the
		// object it becomes is pruned by the resource's defaulting.
		for _, path := range info.Prune(obj.DeepCopy()) {
			strictErrs = append(strictErrs, fmt.Errorf("unknown field %q", path))
		}
	}
	return obj, strictErrs, err
}

// parseObject decodes JSON as an object of info's kind and, for built-in
// kinds, also into its Go type, reporting unknown and duplicate fields.
func parseObject(info *resource.Info, data []byte) (*unstructured.Unstructured, runtime.Object, []error, error) {
	if err := checkDepth(data); err != nil {
		return nil, nil, nil, err
	}
	typed, ok := resource.Typed(info.GroupVersionKind())
	m := map[string]any{}
	var dups []error
	if ok {
		if err := utiljson.Unmarshal(data, &m); err != nil {
			return nil, nil, nil, apierrors.NewBadRequest("the body is not a JSON object: " + err.Error())
		}
	} else {
		// A kind without a Go type (a custom resource) has its duplicate
		// fields found here, as kube's strict decoding of one does; a
		// typed kind's are found below, with its unknown fields.
		var err error
		if dups, err = kjson.UnmarshalStrict(data, &m); err != nil {
			return nil, nil, nil, apierrors.NewBadRequest("the body is not a JSON object: " + err.Error())
		}
	}
	obj := &unstructured.Unstructured{Object: m}
	if err := checkKind(info, obj); err != nil {
		return nil, nil, nil, err
	}
	if !ok {
		return obj, nil, dups, nil
	}
	// The body as sent, not m: a duplicate field survives only there.
	strictErrs, err := kjson.UnmarshalStrict(data, typed)
	if err != nil {
		return nil, nil, nil, apierrors.NewBadRequest(fmt.Sprintf("the body is not a valid %s: %v", info.Kind, err))
	}
	return obj, typed, strictErrs, nil
}

// checkKind fills in a missing apiVersion and kind and refuses others.
func checkKind(info *resource.Info, obj *unstructured.Unstructured) error {
	switch av := obj.GetAPIVersion(); {
	case av == "":
		obj.SetAPIVersion(info.APIVersion())
	case av != info.APIVersion():
		return apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", av, info.APIVersion()))
	}
	switch k := obj.GetKind(); {
	case k == "":
		obj.SetKind(info.Kind)
	case k != info.Kind:
		return apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): kind %q", info.Kind, k))
	}
	return nil
}

// checkDepth refuses JSON nested deeper than maxDepth.
func checkDepth(data []byte) error {
	depth, inString, escaped := 0, false, false
	for _, c := range data {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
			if depth > maxDepth {
				return apierrors.NewBadRequest(fmt.Sprintf("the body nests deeper than %d levels", maxDepth))
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}

// fieldProblems applies the fieldValidation mode to unknown and duplicate
// field errors.
func fieldProblems(mode string, errs []error) ([]string, error) {
	if len(errs) == 0 || mode == "Ignore" {
		return nil, nil
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = strictMessage(e)
	}
	if mode == "Strict" {
		return nil, apierrors.NewBadRequest("strict decoding error: " + strings.Join(msgs, ", "))
	}
	return msgs, nil
}

func strictMessage(err error) string {
	msg := err.Error()
	// sigs.k8s.io/yaml wraps duplicate-key errors in a long preamble.
	if i := strings.LastIndex(msg, "key "); i >= 0 && strings.Contains(msg, "already set") {
		return "duplicate field " + strings.TrimSpace(msg[i+4:])
	}
	return msg
}

// Prefixes of sigs.k8s.io/yaml's strict-decoding errors, before the list of
// problems, one a line.
const (
	yamlErrorsShort = "yaml: unmarshal errors:\n"
	yamlErrorsLong  = "error converting YAML to JSON: " + yamlErrorsShort
)

// applyDuplicates reports an apply body's duplicate keys, which its
// conversion to JSON drops, as kube's apply does after merging: the YAML
// parser's own message (with line numbers) as a 400 under Strict, a
// warning a line under Warn.
func applyDuplicates(mode string, body []byte) ([]string, error) {
	if mode != "Strict" && mode != "Warn" {
		return nil, nil
	}
	err := yaml.UnmarshalStrict(body, &map[string]any{})
	if err == nil {
		return nil, nil
	}
	if mode == "Strict" {
		return nil, apierrors.NewBadRequest("error strict decoding patch: " + err.Error())
	}
	return yamlWarnings(err.Error()), nil
}

// yamlWarnings splits a strict YAML error into its problems.
func yamlWarnings(msg string) []string {
	rest, ok := strings.CutPrefix(msg, yamlErrorsLong)
	if !ok {
		if rest, ok = strings.CutPrefix(msg, yamlErrorsShort); !ok {
			return []string{msg}
		}
	}
	lines := strings.Split(rest, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return lines
}
