package spec

import (
	"strings"
	"testing"
)

// TestBodyMediaChoice checks that a request body is sent in the first media type the emitters
// can express (JSON, a form of an object, multipart of an object with properties, then raw
// bytes), that a form or multipart media type passed over is a warning, and that a body none of
// whose media types can be sent is an error at the schema.
func TestBodyMediaChoice(t *testing.T) {
	const spec = `openapi: 3.0.3
info: {title: x, version: "1"}
paths:
  /octet:
    post:
      operationId: octet
      requestBody:
        content:
          multipart/form-data: {schema: {type: string, format: binary}}
          application/octet-stream: {schema: {type: string, format: binary}}
      responses: {"204": {description: ok}}
  /any:
    post:
      operationId: anyType
      requestBody:
        content:
          multipart/form-data: {schema: {type: array, items: {type: string}}}
          "*/*": {}
      responses: {"204": {description: ok}}
  /json:
    post:
      operationId: json
      requestBody:
        content:
          multipart/form-data: {schema: {type: object, properties: {file: {type: string, format: binary}}}}
          application/json: {schema: {type: object, properties: {name: {type: string}}}}
      responses: {"204": {description: ok}}
  /multipart:
    post:
      operationId: multipart
      requestBody:
        content:
          application/x-www-form-urlencoded: {schema: {type: array, items: {type: string}}}
          multipart/form-data: {schema: {allOf: [{$ref: "#/components/schemas/Upload"}]}}
      responses: {"204": {description: ok}}
  /none:
    post:
      operationId: none
      requestBody:
        content:
          multipart/form-data:
            schema: {type: string}
      responses: {"204": {description: ok}}
components:
  schemas:
    Upload:
      type: object
      properties:
        file: {type: string, format: binary}
`
	const annot = "version: 1\npackage: x\ndefaults: {effect: idempotent, response: {is: acknowledgement}}\nscope: x\n"
	_, errs, _ := loadCase(t, "media.yaml", spec, annot)
	wantErrs := `media.yaml:42:13: operation "none": request body multipart/form-data: the schema is not an object with properties, so it has no parts to send, and the operation offers no other media type: declare an object schema whose properties are the fields`
	if errs != wantErrs {
		t.Errorf("errors:\n%s\nwant:\n%s", errs, wantErrs)
	}

	api, errs, warnings := loadCase(t, "media.yaml", spec, annot+"exclude: {none: no parts}\n")
	if errs != "" {
		t.Fatal(errs)
	}
	wantWarnings := `media.yaml:9:33: operation "octet": request body multipart/form-data: the schema is not an object with properties, so it has no parts to send: the body is sent as application/octet-stream instead
media.yaml:17:33: operation "anyType": request body multipart/form-data: the schema is not an object with properties, so it has no parts to send: the body is sent as */* instead
media.yaml:33:47: operation "multipart": request body application/x-www-form-urlencoded: the schema is not an object, so it has no fields to send: the body is sent as multipart/form-data instead`
	if warnings != wantWarnings {
		t.Errorf("warnings:\n%s\nwant:\n%s", warnings, wantWarnings)
	}
	got := dumpAPI(api)
	for _, want := range []string{
		"op Octet = octet POST /octet write=true at media.yaml:5:5\n  body raw application/octet-stream []byte",
		"op AnyType = anyType POST /any write=true at media.yaml:13:5\n  body raw */* []byte",
		"op JSON = json POST /json write=true at media.yaml:21:5\n  body json application/json JSONRequest",
		"op Multipart = multipart POST /multipart write=true at media.yaml:29:5\n  body multipart multipart/form-data Upload",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("got:\n%s\nwant it to hold:\n%s", got, want)
		}
	}
}

// TestPathParamNotInPath checks that a path parameter the path template does not hold is left
// out with a warning at its declaration, and that the operation is generated.
func TestPathParamNotInPath(t *testing.T) {
	const spec = `openapi: 3.0.3
info: {title: x, version: "1"}
paths:
  /things/{id}:
    parameters:
      - {name: account, in: path, required: true, schema: {type: string}}
    get:
      operationId: getThing
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
        - $ref: "#/components/parameters/version"
      responses: {"204": {description: ok}}
components:
  parameters:
    version: {name: version, in: path, required: true, schema: {type: string}}
`
	api, errs, warnings := loadCase(t, "params.yaml", spec, "version: 1\npackage: x\nscope: x\n")
	if errs != "" {
		t.Fatal(errs)
	}
	want := `params.yaml:6:9: operation "getThing": path parameter "account" is not in the path "/things/{id}", so nothing can carry it: it is left out
params.yaml:11:11: operation "getThing": path parameter "version" is not in the path "/things/{id}", so nothing can carry it: it is left out`
	if warnings != want {
		t.Errorf("warnings:\n%s\nwant:\n%s", warnings, want)
	}
	if got := dumpAPI(api); !strings.Contains(got, "op GetThing = getThing GET /things/{id} write=false at params.yaml:7:5\n  param ID path \"id\" string required=true") {
		t.Errorf("got:\n%s", got)
	}
}
