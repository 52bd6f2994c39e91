// Package load reads an OpenAPI document into the positioned node tree every later stage of the
// generator reads it from, and into kin-openapi's model decoded from that tree (Read): OpenAPI
// 3.0 and 3.1, and Swagger 2.0 through kin-openapi's converter. A JSON spec is parsed once into
// the tree (ParseJSON), so every node keeps its file:line:col. Defects kin-openapi refuses to
// read are cut out of the tree at their position and recorded (Document.Defects), and
// Document.SortDefects sorts them into errors and warnings by what the operations in scope reach.
//
// # Specs split across several files
//
// A reference may name another file by its path relative to the file it is written in, and a
// JSON pointer into it (none: the whole file). Only files in the root spec's directory and below
// are read (spec.Options.Files, by default that directory on disk): a reference that leaves it
// (through .. or a symbolic link), an absolute path, a URL, a missing file, a file that is not
// YAML or JSON and a cycle of references that defines nothing are defects at the reference (or
// in the file), like any other. What the references name is bundled into the root's tree
// before anything else reads it (files.go): a path item, an operation or a map of properties is
// written in place of its reference; anything else becomes a component of the root, and its
// references local ones to it. The lines of each file are shifted past those of the files read
// before it, so every node still says which file and line it is written at. Names: a component
// of the root that is only a reference to another file's schema is that schema, under the
// root's key; any other schema of another file wants the last segment of its pointer as a name,
// or for a whole file the file's name without its extension ("schemas/Ticket.yaml": Ticket).
// When that name is taken in its section, by the root or by another file, the schema is keyed
// apart ("#/components/schemas/Ticket@v2/Ticket.yaml") and still wants the name: the names that
// collide are then settled as any others (below). The annotation file's names block names such
// a schema by its file and pointer ("common/errors.yaml#/components/schemas/Error").
package load
