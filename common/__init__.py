"""What every layer may use and that is not the domain: logging, the language
of texts and how reasons read. Imports only ``core`` and libraries."""
