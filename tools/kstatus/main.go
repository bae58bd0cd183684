// Command kstatus prints the verdict of sigs.k8s.io/cli-utils/pkg/kstatus — what Flux and kpt use
// to decide whether an applied object is Current, InProgress or Failed — for Kubernetes objects read
// as JSON on stdin: one object, a JSON array of objects, or a List ({"items": [...]}, what
// `kubectl get -o json` prints). It writes one JSON array, one entry per object, in input order.
//
// Reading objects instead of a kubeconfig keeps the binary free of client-go and the caller in
// charge of credentials: `kubectl get functions.orrery.dev -o json | kstatus`.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kjson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

type verdict struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Status    string `json:"status"`
	Message   string `json:"message"`
}

func main() {
	raw, err := io.ReadAll(io.LimitReader(os.Stdin, 64<<20))
	if err != nil {
		fail("reading stdin: %v", err)
	}
	objects, err := decode(raw)
	if err != nil {
		fail("stdin is not a Kubernetes object, a JSON array of objects or a List: %v", err)
	}
	out := make([]verdict, 0, len(objects))
	for _, obj := range objects {
		u := &unstructured.Unstructured{Object: obj}
		res, err := status.Compute(u)
		if err != nil {
			fail("%s %s/%s: kstatus could not compute a status: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err)
		}
		out = append(out, verdict{Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName(), Status: res.Status.String(), Message: res.Message})
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(out); err != nil {
		fail("writing stdout: %v", err)
	}
}

// decode reads integers as int64 (apimachinery's JSON), which kstatus's field accessors expect.
func decode(raw []byte) ([]map[string]interface{}, error) {
	var list []map[string]interface{}
	if err := kjson.Unmarshal(raw, &list); err == nil {
		return list, nil
	}
	var one map[string]interface{}
	if err := kjson.Unmarshal(raw, &one); err != nil {
		return nil, err
	}
	if items, ok := one["items"].([]interface{}); ok {
		for i, it := range items {
			obj, ok := it.(map[string]interface{})
			if !ok {
				return nil, fmt.Errorf("items[%d] is not an object", i)
			}
			list = append(list, obj)
		}
		return list, nil
	}
	return []map[string]interface{}{one}, nil
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "kstatus: "+format+"\n", args...)
	os.Exit(2)
}
