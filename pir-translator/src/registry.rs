//! [`Handlers`]: the op handlers by legacy op type — the built-in special handlers, the ones
//! users register, and the general translation for every other type.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::handlers::builtin_handlers;
use crate::op_translator::{general::GeneralTranscriber, OpTranscriber};

/// The handler of each legacy op type.
pub(crate) struct Handlers {
    special: FxHashMap<String, Arc<dyn OpTranscriber>>,
    general: Arc<dyn OpTranscriber>,
}

impl Handlers {
    /// The built-in special handlers.
    pub(crate) fn builtin() -> Self {
        Handlers {
            special: builtin_handlers()
                .into_iter()
                .map(|(n, h)| (n.to_string(), h))
                .collect(),
            general: Arc::new(GeneralTranscriber),
        }
    }

    /// Registers `handler` for `op_type`, returning the one it replaces.
    pub(crate) fn register(
        &mut self,
        op_type: String,
        handler: Arc<dyn OpTranscriber>,
    ) -> Option<Arc<dyn OpTranscriber>> {
        self.special.insert(op_type, handler)
    }

    /// Whether a special handler is registered for `op_type`.
    pub(crate) fn is_special(&self, op_type: &str) -> bool {
        self.special.contains_key(op_type)
    }

    /// The handler of `op_type`: its special handler, or the general one.
    pub(crate) fn get(&self, op_type: &str) -> &dyn OpTranscriber {
        self.special.get(op_type).unwrap_or(&self.general).as_ref()
    }

    /// The number of special handlers.
    pub(crate) fn len(&self) -> usize {
        self.special.len()
    }
}
