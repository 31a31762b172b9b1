"""Reading a results JSON: bounded loading, the schema, the document's own limits and rules, and read-only accessors."""
