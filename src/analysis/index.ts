// Public API of src/analysis (filled in as the module grows).
export {};
