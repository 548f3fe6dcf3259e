//! Paddle's phi InferMeta functions in Rust.
//!
//! Paddle's generated op `Build` computes result types by running the op's phi InferMeta
//! function (`infer_meta.func` in the op yaml) on the metadata of the inputs. This module holds
//! those functions with Paddle 3.3.1's semantics, following the compile-time branch
//! (`MetaConfig.is_runtime == false`): unknown extents stay `-1`. They are grouped as Paddle
//! groups them (`unary.cc`, `binary.cc`, `ternary.cc`, `multiary.cc`, `nullary.cc`,
//! `backward.cc`, `fusion.cc`, `sparse/*.cc`) and registered by Paddle's exact names in [`REGISTRY`], which `build.rs`
//! generates from every function written with `#[infer_meta]`.

mod common;

pub mod backward;
pub mod binary;
pub mod fusion;
pub mod manual;
pub mod multiary;
pub mod nullary;
pub mod sparse;
pub mod ternary;
pub mod unary;

include!(concat!(env!("OUT_DIR"), "/infer_meta_registry.rs"));

#[cfg(test)]
mod tests;
