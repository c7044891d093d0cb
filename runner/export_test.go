package runner

// ReadRegular exposes readRegular to the external tests.
var ReadRegular = readRegular
