// Public API of src/report (filled in as the module grows).
export {};
