//! A ResNet-50-shaped legacy inference program (`ProgramDesc`), as `save_inference_model`
//! writes it: `feed`, the stem (conv 7×7/2, batch_norm, relu, max pool 3×3/2), 16 bottleneck
//! blocks (3, 4, 6, 3; each conv 1×1, conv 3×3, conv 1×1 with batch_norm, a projection
//! shortcut in the first block of a stage, `elementwise_add`, relu), a global average pool,
//! `flatten_contiguous_range`, the fc (`mul` + `elementwise_add` with `axis = 1`) and `fetch`.
//!
//! 176 compute ops (53 conv2d, 53 batch_norm, 49 relu, 2 pool2d, 17 elementwise_add, 1
//! flatten, 1 mul) plus `feed` and `fetch`; parameters are persistable variables. Op
//! attributes are the ones Paddle writes (role, namescope, device, extra runtime attributes),
//! and `feed`/`fetch` carry an `op_callstack`, as in real inference models.
#![allow(dead_code)]

use pir_legacy::proto::{self, op_desc, var_type::Type as VT, AttrType};
use prost::Message;

struct Builder {
    vars: Vec<proto::VarDesc>,
    ops: Vec<proto::OpDesc>,
    counter: usize,
}

fn tensor_var(name: &str, dims: &[i64], persistable: bool) -> proto::VarDesc {
    proto::VarDesc {
        name: Some(name.into()),
        r#type: Some(proto::VarType {
            r#type: Some(VT::DenseTensor as i32),
            dense_tensor: Some(proto::var_type::DenseTensorDesc {
                tensor: Some(proto::var_type::TensorDesc {
                    data_type: Some(VT::Fp32 as i32),
                    dims: dims.to_vec(),
                }),
                legacy_lod_level: Some(0),
            }),
            ..Default::default()
        }),
        persistable: Some(persistable),
        need_check_feed: Some(false),
        is_parameter: Some(persistable),
        stop_gradient: Some(false),
        attrs: vec![],
    }
}

fn kind_var(name: &str, kind: VT) -> proto::VarDesc {
    proto::VarDesc {
        name: Some(name.into()),
        r#type: Some(proto::VarType {
            r#type: Some(kind as i32),
            ..Default::default()
        }),
        persistable: Some(true),
        ..Default::default()
    }
}

fn slot(p: &str, args: &[&str]) -> op_desc::Var {
    op_desc::Var {
        parameter: Some(p.into()),
        arguments: args.iter().map(|a| a.to_string()).collect(),
    }
}

fn attr(name: &str, ty: AttrType) -> op_desc::Attr {
    op_desc::Attr {
        name: Some(name.into()),
        r#type: Some(ty as i32),
        ..Default::default()
    }
}
fn a_int(name: &str, v: i32) -> op_desc::Attr {
    op_desc::Attr {
        i: Some(v),
        ..attr(name, AttrType::Int)
    }
}
fn a_ints(name: &str, v: &[i32]) -> op_desc::Attr {
    op_desc::Attr {
        ints: v.to_vec(),
        ..attr(name, AttrType::Ints)
    }
}
fn a_float(name: &str, v: f32) -> op_desc::Attr {
    op_desc::Attr {
        f: Some(v),
        ..attr(name, AttrType::Float)
    }
}
fn a_bool(name: &str, v: bool) -> op_desc::Attr {
    op_desc::Attr {
        b: Some(v),
        ..attr(name, AttrType::Boolean)
    }
}
fn a_str(name: &str, v: &str) -> op_desc::Attr {
    op_desc::Attr {
        s: Some(v.into()),
        ..attr(name, AttrType::String)
    }
}
fn a_strs(name: &str, v: &[&str]) -> op_desc::Attr {
    op_desc::Attr {
        strings: v.iter().map(|s| s.to_string()).collect(),
        ..attr(name, AttrType::Strings)
    }
}

/// The attributes every op of a Paddle static program carries.
fn common_attrs() -> Vec<op_desc::Attr> {
    vec![
        a_str("op_device", ""),
        a_str("op_namescope", "/"),
        a_int("op_role", 0),
        a_strs("op_role_var", &[]),
        a_bool("with_quant_attr", false),
    ]
}

const CALLSTACK: &[&str] = &[
    "  File \"resnet50_export.py\", line 88, in <module>",
    "    paddle.static.save_inference_model(prefix, [x], [logits], exe, program=main)",
    "  File \"paddle/base/wrapped_decorator.py\", line 50, in wrapper",
    "    return decorated(*args, **kwargs)",
    "  File \"paddle/base/framework.py\", line 751, in __impl__",
    "    return func(*args, **kwargs)",
    "  File \"paddle/static/io.py\", line 611, in save_inference_model",
    "    program = normalize_program(",
    "  File \"paddle/static/io.py\", line 298, in normalize_program",
    "    prepend_feed_ops(copy_program, feed_var_names)",
    "  File \"paddle/base/framework.py\", line 3339, in __init__",
    "    for frame in traceback.extract_stack():",
];

impl Builder {
    fn tmp(&mut self, prefix: &str, dims: &[i64]) -> String {
        let name = format!("{prefix}_{}.tmp_0", self.counter);
        self.counter += 1;
        self.vars.push(tensor_var(&name, dims, false));
        name
    }

    fn param(&mut self, name: String, dims: &[i64]) -> String {
        self.vars.push(tensor_var(&name, dims, true));
        name
    }

    fn op(
        &mut self,
        ty: &str,
        inputs: Vec<op_desc::Var>,
        outputs: Vec<op_desc::Var>,
        mut attrs: Vec<op_desc::Attr>,
    ) {
        attrs.extend(common_attrs());
        attrs.sort_by(|a, b| a.name.cmp(&b.name));
        self.ops.push(proto::OpDesc {
            r#type: Some(ty.into()),
            inputs,
            outputs,
            attrs,
            is_target: Some(false),
        });
    }

    fn conv(
        &mut self,
        x: &str,
        dims: [i64; 4],
        out_c: i64,
        k: i64,
        stride: i64,
    ) -> (String, [i64; 4]) {
        let id = self.ops.len();
        let pad = (k - 1) / 2;
        let h = (dims[2] + 2 * pad - k) / stride + 1;
        let w = self.param(format!("conv2d_{id}.w_0"), &[out_c, dims[1], k, k]);
        let out_dims = [-1, out_c, h, h];
        let out = self.tmp("conv2d", &out_dims);
        self.op(
            "conv2d",
            vec![slot("Filter", &[&w]), slot("Input", &[x])],
            vec![slot("Output", &[&out])],
            vec![
                a_str("data_format", "NCHW"),
                a_ints("dilations", &[1, 1]),
                a_bool("exhaustive_search", false),
                a_int("groups", 1),
                a_str("padding_algorithm", "EXPLICIT"),
                a_ints("paddings", &[pad as i32, pad as i32]),
                a_ints("strides", &[stride as i32, stride as i32]),
                a_bool("use_cudnn", true),
                a_bool("use_mkldnn", false),
                a_int("workspace_size_MB", 512),
            ],
        );
        (out, out_dims)
    }

    fn bn(&mut self, x: &str, dims: [i64; 4]) -> String {
        let id = self.ops.len();
        let c = [dims[1]];
        let scale = self.param(format!("batch_norm_{id}.w_0"), &c);
        let bias = self.param(format!("batch_norm_{id}.b_0"), &c);
        let mean = self.param(format!("batch_norm_{id}.w_1"), &c);
        let var = self.param(format!("batch_norm_{id}.w_2"), &c);
        let saved_mean = self.tmp("batch_norm", &c);
        let saved_var = self.tmp("batch_norm", &c);
        let y = self.tmp("batch_norm", &dims);
        self.op(
            "batch_norm",
            vec![
                slot("Bias", &[&bias]),
                slot("Mean", &[&mean]),
                slot("MomentumTensor", &[]),
                slot("Scale", &[&scale]),
                slot("Variance", &[&var]),
                slot("X", &[x]),
            ],
            vec![
                slot("MeanOut", &[&mean]),
                slot("SavedMean", &[&saved_mean]),
                slot("SavedVariance", &[&saved_var]),
                slot("VarianceOut", &[&var]),
                slot("Y", &[&y]),
            ],
            vec![
                a_str("data_layout", "NCHW"),
                a_float("epsilon", 1e-5),
                a_bool("fuse_with_relu", false),
                a_bool("is_test", true),
                a_float("momentum", 0.9),
                a_bool("trainable_statistics", false),
                a_bool("use_global_stats", false),
                a_bool("use_mkldnn", false),
            ],
        );
        y
    }

    fn relu(&mut self, x: &str, dims: [i64; 4]) -> String {
        let out = self.tmp("relu", &dims);
        self.op(
            "relu",
            vec![slot("X", &[x])],
            vec![slot("Out", &[&out])],
            vec![a_bool("use_cudnn", false)],
        );
        out
    }

    fn pool(&mut self, x: &str, dims: [i64; 4], global: bool) -> (String, [i64; 4]) {
        let (ty, k, s, p, out_h) = if global {
            ("avg", dims[2], 1, 0, 1)
        } else {
            ("max", 3, 2, 1, (dims[2] + 2 - 3) / 2 + 1)
        };
        let out_dims = [-1, dims[1], out_h, out_h];
        let out = self.tmp("pool2d", &out_dims);
        self.op(
            "pool2d",
            vec![slot("X", &[x])],
            vec![slot("Out", &[&out])],
            vec![
                a_bool("adaptive", false),
                a_bool("ceil_mode", false),
                a_str("data_format", "NCHW"),
                a_bool("exclusive", true),
                a_bool("global_pooling", global),
                a_ints("ksize", &[k as i32, k as i32]),
                a_str("padding_algorithm", "EXPLICIT"),
                a_ints("paddings", &[p, p]),
                a_str("pooling_type", ty),
                a_ints("strides", &[s, s]),
                a_bool("use_cudnn", true),
            ],
        );
        (out, out_dims)
    }

    fn add(&mut self, x: &str, y: &str, dims: &[i64], axis: i32) -> String {
        let out = self.tmp("elementwise_add", dims);
        self.op(
            "elementwise_add",
            vec![slot("X", &[x]), slot("Y", &[y])],
            vec![slot("Out", &[&out])],
            vec![a_int("axis", axis)],
        );
        out
    }

    fn bottleneck(
        &mut self,
        x: &str,
        dims: [i64; 4],
        width: i64,
        stride: i64,
        project: bool,
    ) -> (String, [i64; 4]) {
        let (a, ad) = self.conv(x, dims, width, 1, 1);
        let a = self.bn(&a, ad);
        let a = self.relu(&a, ad);
        let (b, bd) = self.conv(&a, ad, width, 3, stride);
        let b = self.bn(&b, bd);
        let b = self.relu(&b, bd);
        let (c, cd) = self.conv(&b, bd, width * 4, 1, 1);
        let c = self.bn(&c, cd);
        let shortcut = if project {
            let (s, sd) = self.conv(x, dims, width * 4, 1, stride);
            self.bn(&s, sd)
        } else {
            x.to_string()
        };
        let sum = self.add(&c, &shortcut, &cd, -1);
        (self.relu(&sum, cd), cd)
    }
}

/// The program, encoded as a `.pdmodel`.
pub fn resnet50_pdmodel() -> Vec<u8> {
    let mut b = Builder {
        vars: vec![
            kind_var("feed", VT::FeedMinibatch),
            kind_var("fetch", VT::FetchList),
        ],
        ops: Vec::new(),
        counter: 0,
    };
    let dims = [-1, 3, 224, 224];
    b.vars.push(tensor_var("x", &dims, false));
    let mut feed_attrs = vec![a_int("col", 0), a_strs("op_callstack", CALLSTACK)];
    feed_attrs.extend(common_attrs());
    b.ops.push(proto::OpDesc {
        r#type: Some("feed".into()),
        inputs: vec![slot("X", &["feed"])],
        outputs: vec![slot("Out", &["x"])],
        attrs: feed_attrs,
        is_target: Some(false),
    });

    let (x, d) = b.conv("x", dims, 64, 7, 2);
    let x = b.bn(&x, d);
    let x = b.relu(&x, d);
    let (mut x, mut d) = b.pool(&x, d, false);
    for (stage, (blocks, width)) in [(3, 64), (4, 128), (6, 256), (3, 512)]
        .into_iter()
        .enumerate()
    {
        for i in 0..blocks {
            let stride = if stage > 0 && i == 0 { 2 } else { 1 };
            (x, d) = b.bottleneck(&x, d, width, stride, i == 0);
        }
    }
    let (x, d) = b.pool(&x, d, true);
    let flat = b.tmp("flatten", &[-1, d[1]]);
    let xshape = b.tmp("flatten", &[0, -1, d[1], 1, 1]);
    b.op(
        "flatten_contiguous_range",
        vec![slot("X", &[&x])],
        vec![slot("Out", &[&flat]), slot("XShape", &[&xshape])],
        vec![a_int("start_axis", 1), a_int("stop_axis", 3)],
    );
    let w = b.param("fc_0.w_0".into(), &[d[1], 1000]);
    let bias = b.param("fc_0.b_0".into(), &[1000]);
    let mul = b.tmp("fc", &[-1, 1000]);
    b.op(
        "mul",
        vec![slot("X", &[&flat]), slot("Y", &[&w])],
        vec![slot("Out", &[&mul])],
        vec![a_int("x_num_col_dims", 1), a_int("y_num_col_dims", 1)],
    );
    let logits = b.add(&mul, &bias, &[-1, 1000], 1);
    let mut fetch_attrs = vec![a_int("col", 0), a_strs("op_callstack", CALLSTACK)];
    fetch_attrs.extend(common_attrs());
    b.ops.push(proto::OpDesc {
        r#type: Some("fetch".into()),
        inputs: vec![slot("X", &[&logits])],
        outputs: vec![slot("Out", &["fetch"])],
        attrs: fetch_attrs,
        is_target: Some(false),
    });

    b.vars.sort_by(|a, b| a.name.cmp(&b.name));
    proto::ProgramDesc {
        blocks: vec![proto::BlockDesc {
            idx: Some(0),
            parent_idx: Some(-1),
            vars: b.vars,
            ops: b.ops,
            forward_block_idx: Some(-1),
        }],
        version: Some(proto::Version {
            version: Some(3003001),
        }),
        op_version_map: None,
    }
    .encode_to_vec()
}
