// Placeholder translation unit so the library has a source before its first concept lands.
