// Public API of src/orchestrator (filled in as the module grows).
export {};
