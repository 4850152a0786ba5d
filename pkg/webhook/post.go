package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Post sends in as JSON and decodes a 2xx answer into out, returning the
// answer's headers. A failed call, a timeout, a redirect or a non-2xx
// status is ErrUnavailable; an oversized or undecodable answer is
// ErrMalformedAnswer. out is left alone unless the answer is used.
func (c *Client) Post(ctx context.Context, in, out any) (http.Header, error) {
	body, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("webhook: encoding request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	defer resp.Body.Close()
	if err := c.readAnswer(resp, out); err != nil {
		return nil, err
	}
	return resp.Header, nil
}

// readAnswer checks the answer's status and size, then decodes it.
func (c *Client) readAnswer(resp *http.Response, out any) error {
	// One byte over the limit tells "exactly the limit" from "more".
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBytes+1))
	if err != nil {
		return fmt.Errorf("%w: reading answer: %w", ErrUnavailable, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("%w: webhook answered %s%s", ErrUnavailable, resp.Status, statusMessage(data))
	}
	if int64(len(data)) > c.maxBytes {
		return fmt.Errorf("%w: answer larger than %d bytes", ErrMalformedAnswer, c.maxBytes)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%w: %w", ErrMalformedAnswer, err)
	}
	return nil
}

// statusMessage extracts the message of a metav1.Status error body, if the
// body is one, for the error text.
func statusMessage(data []byte) string {
	var s metav1.Status
	if json.Unmarshal(data, &s) != nil || s.Kind != "Status" || s.Message == "" {
		return ""
	}
	return ": " + s.Message
}
