//! trybuild compile-fail suite.
