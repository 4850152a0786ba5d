package audit

import (
	"encoding/json"
	"maps"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Level is how much of a request is recorded.
type Level string

// The levels, from least to most.
const (
	LevelNone            Level = "None"
	LevelMetadata        Level = "Metadata"
	LevelRequest         Level = "Request"
	LevelRequestResponse Level = "RequestResponse"
)

var levelOrder = map[Level]int{LevelNone: 0, LevelMetadata: 1, LevelRequest: 2, LevelRequestResponse: 3}

// atLeast reports whether l records at least as much as other.
func (l Level) atLeast(other Level) bool { return levelOrder[l] >= levelOrder[other] }

// Stage is the point of a request's life an event is written at.
type Stage string

// The stages.
const (
	StageRequestReceived  Stage = "RequestReceived"
	StageResponseStarted  Stage = "ResponseStarted"
	StageResponseComplete Stage = "ResponseComplete"
	StagePanic            Stage = "Panic"
)

// Event is an audit.k8s.io/v1 Event.
type Event struct {
	Kind                     string                     `json:"kind"`
	APIVersion               string                     `json:"apiVersion"`
	Level                    Level                      `json:"level"`
	AuditID                  string                     `json:"auditID"`
	Stage                    Stage                      `json:"stage"`
	RequestURI               string                     `json:"requestURI"`
	Verb                     string                     `json:"verb"`
	User                     authenticationv1.UserInfo  `json:"user"`
	ImpersonatedUser         *authenticationv1.UserInfo `json:"impersonatedUser,omitempty"`
	SourceIPs                []string                   `json:"sourceIPs,omitempty"`
	UserAgent                string                     `json:"userAgent,omitempty"`
	ObjectRef                *ObjectReference           `json:"objectRef,omitempty"`
	ResponseStatus           *metav1.Status             `json:"responseStatus,omitempty"`
	RequestObject            json.RawMessage            `json:"requestObject,omitempty"`
	ResponseObject           json.RawMessage            `json:"responseObject,omitempty"`
	RequestReceivedTimestamp metav1.MicroTime           `json:"requestReceivedTimestamp"`
	StageTimestamp           metav1.MicroTime           `json:"stageTimestamp"`
	Annotations              map[string]string          `json:"annotations,omitempty"`
}

// ObjectReference is what a resource request is about.
type ObjectReference struct {
	Resource    string `json:"resource,omitempty"`
	Namespace   string `json:"namespace,omitempty"`
	Name        string `json:"name,omitempty"`
	APIGroup    string `json:"apiGroup,omitempty"`
	APIVersion  string `json:"apiVersion,omitempty"`
	Subresource string `json:"subresource,omitempty"`
}

// at is a copy of ev at stage s, safe to hand to the writer while the
// request goes on changing ev.
func (ev *Event) at(s Stage, now metav1.MicroTime) *Event {
	out := *ev
	out.Stage, out.StageTimestamp = s, now
	out.Annotations = maps.Clone(ev.Annotations)
	return &out
}
