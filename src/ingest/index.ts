// Public API of src/ingest (filled in as the module grows).
export {};
