//! Legacy ProgramDesc → PIR translator.
