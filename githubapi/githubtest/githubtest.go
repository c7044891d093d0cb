// Package githubtest checks the requests a test's fake GitHub receives
// against GitHub's own published OpenAPI description (the
// api.github.com.deref.json of the @octokit/openapi npm package): the
// method and path must be an operation GitHub has, the query parameters
// ones it takes, and the JSON body must pass the operation's schema. A
// field GitHub would refuse then fails a test here rather than a user's
// run. Tests only: the command never imports it.
package githubtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// EnvVar names the description's file; without it the tests look for
// DefaultPath under the module's top folder, where .ci/github-openapi.sh
// puts it.
const (
	EnvVar      = "LORATUNE_GITHUB_OPENAPI"
	DefaultPath = ".cache/github-openapi/api.github.com.deref.json"
	howToGetIt  = "run .ci/github-openapi.sh (npm pack of @octokit/openapi, pinned) or set " + EnvVar + " to an api.github.com.deref.json"
)

// Spec is the part of the description the checks read: each path's
// operations, kept raw until a request needs one.
type Spec struct {
	paths     map[string]map[string]json.RawMessage
	templates [][]string // the paths split at "/"

	mu  sync.Mutex
	ops map[string]*operation // by "METHOD template"
}

type parameter struct {
	Name     string         `json:"name"`
	In       string         `json:"in"`
	Required bool           `json:"required"`
	Schema   map[string]any `json:"schema"`
}

type operation struct {
	ID         string      `json:"operationId"`
	Parameters []parameter `json:"parameters"`
	Body       *struct {
		Required bool `json:"required"`
		Content  map[string]struct {
			Schema map[string]any `json:"schema"`
		} `json:"content"`
	} `json:"requestBody"`

	body   *jsonschema.Schema
	params map[string]*jsonschema.Schema // by "in:name"
}

var (
	loadOnce sync.Once
	loaded   *Spec
	loadErr  error
	noted    sync.Once
)

// Load returns the description, read once per test binary. Without the
// file, a test under CI=true fails; elsewhere it goes on unchecked, and
// the run says once, on stderr, how to get the file.
func Load(t testing.TB) *Spec {
	t.Helper()
	loadOnce.Do(func() { loaded, loadErr = read(path()) })
	if loadErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("GitHub's OpenAPI description: %v (%s)", loadErr, howToGetIt)
		}
		noted.Do(func() {
			fmt.Fprintf(os.Stderr, "note: the fake GitHub's requests are not checked against GitHub's OpenAPI description (%v): %s\n", loadErr, howToGetIt)
		})
		return nil
	}
	return loaded
}

// path is the description's file: EnvVar, else DefaultPath under the
// folder holding go.mod, searched upwards from the test's folder.
func path() string {
	if p := os.Getenv(EnvVar); p != "" {
		return p
	}
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, filepath.FromSlash(DefaultPath))
		}
		up := filepath.Dir(dir)
		if up == dir {
			return DefaultPath
		}
		dir = up
	}
}

func read(file string) (*Spec, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.NewDecoder(f).Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.0") || len(doc.Paths) == 0 {
		return nil, fmt.Errorf("%s: not an OpenAPI 3.0 description with paths (openapi %q)", file, doc.OpenAPI)
	}
	s := &Spec{paths: doc.Paths, ops: map[string]*operation{}}
	for p := range doc.Paths {
		s.templates = append(s.templates, strings.Split(p, "/"))
	}
	return s, nil
}

// Check returns why GitHub would refuse a request, or nil. path is the
// URL's path without the API prefix (/api/v3 on GitHub Enterprise).
func (s *Spec) Check(method, path string, query map[string][]string, body []byte) error {
	tmpl, pathParams := s.match(path)
	if tmpl == "" {
		return fmt.Errorf("%s %s: no such path in GitHub's REST API", method, path)
	}
	op, err := s.operation(method, tmpl)
	if err != nil {
		return err
	}
	where := fmt.Sprintf("%s %s (%s)", method, path, op.ID)
	var errs []error
	for _, p := range op.Parameters {
		var values []string
		switch p.In {
		case "path":
			values = []string{pathParams[p.Name]}
		case "query":
			values = query[p.Name]
		default:
			continue
		}
		if len(values) == 0 && p.Required {
			errs = append(errs, fmt.Errorf("the %s parameter %s is required", p.In, p.Name))
		}
		for _, v := range values {
			if err := validate(op.params[p.In+":"+p.Name], scalar(v, p.Schema)); err != nil {
				errs = append(errs, fmt.Errorf("the %s parameter %s=%q: %v", p.In, p.Name, v, err))
			}
		}
	}
	for name := range query {
		if op.params["query:"+name] == nil {
			errs = append(errs, fmt.Errorf("the query parameter %s is not one this operation takes", name))
		}
	}
	switch {
	case op.body == nil && len(bytes.TrimSpace(body)) > 0:
		errs = append(errs, errors.New("a body where the operation takes none"))
	case op.body != nil && len(bytes.TrimSpace(body)) == 0:
		if op.Body.Required {
			errs = append(errs, errors.New("no body where the operation requires one"))
		}
	case op.body != nil:
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
		if err != nil {
			errs = append(errs, fmt.Errorf("the body is not JSON: %v", err))
		} else if err := validate(op.body, inst); err != nil {
			errs = append(errs, fmt.Errorf("the body %s: %v", bytes.TrimSpace(body), err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s: %w", where, errors.Join(errs...))
	}
	return nil
}

// match finds the path template of GitHub's API that path fits, the one
// with the most literal segments where several do, and the values of its
// parameters.
func (s *Spec) match(path string) (string, map[string]string) {
	segs := strings.Split(path, "/")
	best, bestLit := -1, -1
	for i, t := range s.templates {
		if len(t) != len(segs) {
			continue
		}
		lit := 0
		ok := true
		for k, part := range t {
			switch {
			case strings.HasPrefix(part, "{") && strings.HasSuffix(part, "}"):
				ok = ok && segs[k] != ""
			case part == segs[k]:
				lit++
			default:
				ok = false
			}
		}
		if ok && lit > bestLit {
			best, bestLit = i, lit
		}
	}
	if best < 0 {
		return "", nil
	}
	params := map[string]string{}
	for k, part := range s.templates[best] {
		if strings.HasPrefix(part, "{") {
			params[strings.Trim(part, "{}")] = segs[k]
		}
	}
	return strings.Join(s.templates[best], "/"), params
}

func (s *Spec) operation(method, tmpl string) (*operation, error) {
	key := method + " " + tmpl
	s.mu.Lock()
	defer s.mu.Unlock()
	if op := s.ops[key]; op != nil {
		return op, nil
	}
	raw, ok := s.paths[tmpl][strings.ToLower(method)]
	if !ok {
		return nil, fmt.Errorf("%s %s: GitHub's REST API has no such method on this path", method, tmpl)
	}
	op := &operation{params: map[string]*jsonschema.Schema{}}
	if err := json.Unmarshal(raw, op); err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	for _, p := range op.Parameters {
		sch, err := compile(key+" "+p.In+":"+p.Name, p.Schema)
		if err != nil {
			return nil, err
		}
		op.params[p.In+":"+p.Name] = sch
	}
	if op.Body != nil {
		c, ok := op.Body.Content["application/json"]
		if !ok {
			return nil, fmt.Errorf("%s: the operation takes no JSON body", key)
		}
		sch, err := compile(key+" body", c.Schema)
		if err != nil {
			return nil, err
		}
		op.body = sch
	}
	s.ops[key] = op
	return op, nil
}

// compile turns an OpenAPI 3.0 schema into a JSON Schema (draft 4, which
// OpenAPI 3.0's schema object extends): "nullable: true" becomes a null in
// the types (and the enum).
func compile(name string, schema map[string]any) (*jsonschema.Schema, error) {
	if schema == nil {
		schema = map[string]any{}
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft4)
	url := "mem:///" + strings.NewReplacer(" ", "_", "{", "", "}", "").Replace(name) + ".json"
	if err := c.AddResource(url, nullable(schema)); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return sch, nil
}

func nullable(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = nullable(e)
		}
		if n, _ := v["nullable"].(bool); n {
			if t, ok := out["type"].(string); ok {
				out["type"] = []any{t, "null"}
			}
			if e, ok := out["enum"].([]any); ok {
				out["enum"] = append(e, nil)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = nullable(e)
		}
		return out
	}
	return v
}

// scalar is a path or query value as the type its schema names.
func scalar(v string, schema map[string]any) any {
	switch schema["type"] {
	case "integer", "number":
		if n, err := strconv.ParseFloat(v, 64); err == nil {
			return json.Number(strconv.FormatFloat(n, 'f', -1, 64))
		}
	case "boolean":
		if b, err := strconv.ParseBool(v); err == nil {
			return b
		}
	}
	return v
}

func validate(sch *jsonschema.Schema, inst any) error {
	if sch == nil {
		return nil
	}
	err := sch.Validate(inst)
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		return errors.New(strings.Join(strings.Fields(fmt.Sprintf("%v", ve)), " "))
	}
	return err
}

// Handler checks each request against the description before next
// serves it: a request GitHub would refuse fails t and is answered with
// GitHub's 422 (404 for a path it does not have). prefix is the API's
// path prefix ("/api/v3", or "").
func Handler(t testing.TB, prefix string, next http.Handler) http.Handler {
	spec := Load(t)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if spec != nil {
			path := strings.TrimPrefix(r.URL.Path, prefix)
			if err := spec.Check(r.Method, path, r.URL.Query(), body); err != nil {
				t.Errorf("GitHub would refuse this request: %v", err)
				w.WriteHeader(http.StatusUnprocessableEntity)
				json.NewEncoder(w).Encode(map[string]string{"message": "Validation Failed (OpenAPI): " + err.Error()})
				return
			}
			if len(body) > 0 && !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
				t.Errorf("%s %s: a JSON body with Content-Type %q", r.Method, path, r.Header.Get("Content-Type"))
			}
		}
		next.ServeHTTP(w, r)
	})
}
