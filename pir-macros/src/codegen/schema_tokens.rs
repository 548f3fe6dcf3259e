//! `OpSchema` → a `static` initializer (every string and list `Cow::Borrowed`).

use proc_macro2::TokenStream;
use quote::quote;

use pir_spec::phi::{AllocationType, DataLayout, DataType, Place};
use pir_spec::{
    AttrKind, AttributeSpec, CompatMutable, CompatSpec, DefaultValue, InputKind, InputSpec,
    MutableAttr, OpKind, OpSchema, OutputSpec, RuntimeInfo, SourceLoc, TensorKind, ValueKind,
};

fn spec() -> TokenStream {
    quote!(::pir_runtime::pir_spec)
}

pub(crate) fn s(v: &str) -> TokenStream {
    quote!(::std::borrow::Cow::Borrowed(#v))
}

fn list<T>(items: &[T], f: impl Fn(&T) -> TokenStream) -> TokenStream {
    let items = items.iter().map(f);
    quote!(::std::borrow::Cow::Borrowed(&[#(#items),*]))
}

fn opt_s(v: &Option<pir_spec::Str>) -> TokenStream {
    match v {
        Some(v) => {
            let v = s(v);
            quote!(::core::option::Option::Some(#v))
        }
        None => quote!(::core::option::Option::None),
    }
}

fn pair(p: &(pir_spec::Str, pir_spec::Str)) -> TokenStream {
    let (a, b) = (s(&p.0), s(&p.1));
    quote!((#a, #b))
}

pub(crate) fn data_type(d: DataType) -> TokenStream {
    let v = syn::Ident::new(&format!("{d:?}"), proc_macro2::Span::call_site());
    quote!(::pir_runtime::phi::DataType::#v)
}

pub(crate) fn data_layout(d: DataLayout) -> TokenStream {
    let v = syn::Ident::new(&format!("{d:?}"), proc_macro2::Span::call_site());
    quote!(::pir_runtime::phi::DataLayout::#v)
}

pub(crate) fn place(p: Place) -> TokenStream {
    let k = syn::Ident::new(&format!("{:?}", p.kind), proc_macro2::Span::call_site());
    let d = p.device;
    let _: AllocationType = p.kind;
    quote!(::pir_runtime::phi::Place { kind: ::pir_runtime::phi::AllocationType::#k, device: #d })
}

fn tensor_kind(k: TensorKind) -> TokenStream {
    let spec = spec();
    let v = syn::Ident::new(&format!("{k:?}"), proc_macro2::Span::call_site());
    quote!(#spec::TensorKind::#v)
}

fn value_kind(k: ValueKind) -> TokenStream {
    let spec = spec();
    match k {
        ValueKind::Tensor(t) => {
            let t = tensor_kind(t);
            quote!(#spec::ValueKind::Tensor(#t))
        }
        ValueKind::Vector(t) => {
            let t = tensor_kind(t);
            quote!(#spec::ValueKind::Vector(#t))
        }
    }
}

pub(crate) fn attr_kind(k: AttrKind) -> TokenStream {
    let spec = spec();
    let v = syn::Ident::new(&format!("{k:?}"), proc_macro2::Span::call_site());
    quote!(#spec::AttrKind::#v)
}

pub(crate) fn default_value(d: &DefaultValue) -> TokenStream {
    let spec = spec();
    match d {
        DefaultValue::Bool(v) => quote!(#spec::DefaultValue::Bool(#v)),
        DefaultValue::Int(v) => quote!(#spec::DefaultValue::Int(#v)),
        DefaultValue::Float(v) => {
            let v = float_lit(*v);
            quote!(#spec::DefaultValue::Float(#v))
        }
        DefaultValue::Str(v) => {
            let v = s(v);
            quote!(#spec::DefaultValue::Str(#v))
        }
        DefaultValue::IntList(v) => {
            let v = list(v, |x| quote!(#x));
            quote!(#spec::DefaultValue::IntList(#v))
        }
        DefaultValue::FloatList(v) => {
            let v = list(v, |x| float_lit(*x));
            quote!(#spec::DefaultValue::FloatList(#v))
        }
        DefaultValue::BoolList(v) => {
            let v = list(v, |x| quote!(#x));
            quote!(#spec::DefaultValue::BoolList(#v))
        }
        DefaultValue::StrList(v) => {
            let v = list(v, |x| s(x));
            quote!(#spec::DefaultValue::StrList(#v))
        }
        DefaultValue::DataType(v) => {
            let v = data_type(*v);
            quote!(#spec::DefaultValue::DataType(#v))
        }
        DefaultValue::DataLayout(v) => {
            let v = data_layout(*v);
            quote!(#spec::DefaultValue::DataLayout(#v))
        }
        DefaultValue::Place(v) => {
            let v = place(*v);
            quote!(#spec::DefaultValue::Place(#v))
        }
    }
}

/// An f64 literal that round-trips (`f64::INFINITY` etc. for non-finite values).
pub(crate) fn float_lit(v: f64) -> TokenStream {
    if v.is_nan() {
        quote!(::core::primitive::f64::NAN)
    } else if v.is_infinite() {
        if v > 0.0 {
            quote!(::core::primitive::f64::INFINITY)
        } else {
            quote!(::core::primitive::f64::NEG_INFINITY)
        }
    } else {
        let lit = proc_macro2::Literal::f64_suffixed(v);
        quote!(#lit)
    }
}

fn opt<T>(v: &Option<T>, f: impl Fn(&T) -> TokenStream) -> TokenStream {
    match v {
        Some(x) => {
            let x = f(x);
            quote!(::core::option::Option::Some(#x))
        }
        None => quote!(::core::option::Option::None),
    }
}

fn mutable_attr(m: &MutableAttr) -> TokenStream {
    let spec = spec();
    let kind = attr_kind(m.kind);
    let data_type = s(&m.data_type);
    let default = opt(&m.default, default_value);
    quote!(#spec::MutableAttr { kind: #kind, data_type: #data_type, default: #default })
}

fn input(i: &InputSpec) -> TokenStream {
    let spec = spec();
    let name = s(&i.name);
    let kind = match &i.kind {
        InputKind::Value(v) => {
            let v = value_kind(*v);
            quote!(#spec::InputKind::Value(#v))
        }
        InputKind::MutableAttribute(m) => {
            let m = mutable_attr(m);
            quote!(#spec::InputKind::MutableAttribute(#m))
        }
    };
    let (optional, nnb, wgs) = (i.optional, i.no_need_buffer, i.with_grad_semantic);
    let doc = s(&i.doc);
    quote!(#spec::InputSpec {
        name: #name, kind: #kind, optional: #optional, no_need_buffer: #nnb,
        with_grad_semantic: #wgs, doc: #doc,
    })
}

fn attribute(a: &AttributeSpec) -> TokenStream {
    let spec = spec();
    let name = s(&a.name);
    let kind = attr_kind(a.kind);
    let data_type = s(&a.data_type);
    let default = opt(&a.default, default_value);
    let yaml_type = s(&a.yaml_type);
    let doc = s(&a.doc);
    quote!(#spec::AttributeSpec {
        name: #name, kind: #kind, data_type: #data_type, default: #default,
        yaml_type: #yaml_type, doc: #doc,
    })
}

fn output(o: &OutputSpec) -> TokenStream {
    let spec = spec();
    let name = s(&o.name);
    let kind = value_kind(o.kind);
    let (optional, intermediate) = (o.optional, o.intermediate);
    let size_expr = opt_s(&o.size_expr);
    let doc = s(&o.doc);
    quote!(#spec::OutputSpec {
        name: #name, kind: #kind, optional: #optional, intermediate: #intermediate,
        size_expr: #size_expr, doc: #doc,
    })
}

fn runtime(r: &RuntimeInfo) -> TokenStream {
    let spec = spec();
    let imf = s(&r.infer_meta_func);
    let imp = list(&r.infer_meta_param, |x| s(x));
    let kf = s(&r.kernel_func);
    let kp = list(&r.kernel_param, |x| s(x));
    let kd = list(&r.kernel_key_dtype, |x| s(x));
    let kb = list(&r.kernel_key_backend, |x| s(x));
    let inplace = list(&r.inplace, pair);
    let view = list(&r.view, pair);
    let skip = list(&r.skip_transform_inputs, |x| s(x));
    quote!(#spec::RuntimeInfo {
        infer_meta_func: #imf, infer_meta_param: #imp, kernel_func: #kf, kernel_param: #kp,
        kernel_key_dtype: #kd, kernel_key_backend: #kb, inplace: #inplace, view: #view,
        skip_transform_inputs: #skip,
    })
}

fn compat_mutable(m: &CompatMutable) -> TokenStream {
    let spec = spec();
    let name = s(&m.name);
    let (dt, tn, tsn) = (
        opt_s(&m.data_type),
        opt_s(&m.tensor_name),
        opt_s(&m.tensors_name),
    );
    let st = m.support_tensor;
    quote!(#spec::CompatMutable {
        name: #name, data_type: #dt, tensor_name: #tn, tensors_name: #tsn, support_tensor: #st,
    })
}

fn compat(c: &CompatSpec) -> TokenStream {
    let spec = spec();
    let legacy = opt_s(&c.legacy_name);
    let inputs = list(&c.inputs, pair);
    let outputs = list(&c.outputs, pair);
    let attrs = list(&c.attrs, pair);
    let mutable = list(&c.mutable, compat_mutable);
    let extra = list(&c.extra_attrs, |x| s(x));
    let extra_inputs = list(&c.extra_inputs, |x| s(x));
    let extra_outputs = list(&c.extra_outputs, |x| s(x));
    let complex_promote = list(&c.complex_promote, |x| s(x));
    let drop_empty_grad = list(&c.drop_empty_grad, |x| s(x));
    let manual_signature = list(&c.manual_signature, |x| s(x));
    let expected_kernel_type = list(&c.expected_kernel_type, pair);
    quote!(#spec::CompatSpec {
        legacy_name: #legacy, inputs: #inputs, outputs: #outputs, attrs: #attrs,
        mutable: #mutable, extra_attrs: #extra, extra_inputs: #extra_inputs,
        extra_outputs: #extra_outputs, complex_promote: #complex_promote,
        drop_empty_grad: #drop_empty_grad, manual_signature: #manual_signature,
        expected_kernel_type: #expected_kernel_type,
    })
}

fn source(l: &SourceLoc) -> TokenStream {
    let spec = spec();
    let file = s(&l.file);
    let line = l.line;
    quote!(#spec::SourceLoc { file: #file, line: #line })
}

/// Replacements for schema fields, as expressions (see `SchemaOverrides`).
#[derive(Default)]
pub(crate) struct Overrides {
    /// The `traits` list.
    pub traits: Option<TokenStream>,
    /// The `interfaces` list.
    pub interfaces: Option<TokenStream>,
    /// The `Option<SourceLoc>` value's `SourceLoc`.
    pub source: Option<TokenStream>,
}

/// The `static` initializer of `schema`, with some fields replaced by expressions.
pub(crate) fn schema_with(x: &OpSchema, o: Overrides) -> TokenStream {
    let spec = spec();
    let dialect = s(&x.dialect);
    let op_name = s(&x.op_name);
    let name = s(&x.name);
    let class_name = s(&x.class_name);
    let origin_name = s(&x.origin_name);
    let kind = match x.kind {
        OpKind::Forward => quote!(#spec::OpKind::Forward),
        OpKind::Backward => quote!(#spec::OpKind::Backward),
    };
    let inputs = list(&x.inputs, input);
    let attributes = list(&x.attributes, attribute);
    let outputs = list(&x.outputs, output);
    let runtime = runtime(&x.runtime);
    let traits = o.traits.unwrap_or_else(|| list(&x.traits, |t| s(t)));
    let interfaces = o
        .interfaces
        .unwrap_or_else(|| list(&x.interfaces, |t| s(t)));
    let backward = opt_s(&x.backward);
    let forward = opt_s(&x.forward);
    let invoke = opt_s(&x.invoke);
    let verify_signature = x.verify_signature;
    let compat = opt(&x.compat, compat);
    let extra = list(&x.extra, pair);
    let source = match o.source {
        Some(loc) => quote!(::core::option::Option::Some(#loc)),
        None => opt(&x.source, source),
    };
    let doc = s(&x.doc);
    quote!(#spec::OpSchema {
        dialect: #dialect, op_name: #op_name, name: #name, class_name: #class_name,
        origin_name: #origin_name, kind: #kind, inputs: #inputs, attributes: #attributes,
        outputs: #outputs, runtime: #runtime, traits: #traits, interfaces: #interfaces,
        backward: #backward, forward: #forward, invoke: #invoke,
        verify_signature: #verify_signature, compat: #compat, extra: #extra, source: #source,
        doc: #doc,
    })
}
