"""Trained policies written as ONNX files (the ``onnx`` extra): the graph of a
``PPOAgent``'s network, built with the ``onnx`` package's helper API from its numpy
weights (no torch). ``agents.onnx_policy`` documents the file and plays one back as an
agent; this module imports nothing of ``agents`` (``agents.ppo`` calls it for
``PPOAgent.export_onnx``).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

OPSET = 17
IR_VERSION = 8
#: metadata keys of the file
META_KEY, EXPORT_KEY = "uno_env", "uno_env_export"
INSTALL = "pip install 'uno-env[onnx]' (onnx and onnxruntime)"


def require(module: str):
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(f"ONNX needs {module}: {INSTALL}") from None


def build_model(agent):
    """The ``onnx.ModelProto`` of ``agent``'s policy (module docstring)."""
    onnx = require("onnx")
    from onnx import TensorProto, helper, numpy_helper
    a = agent.layers[-1][0].shape[0]
    nodes, inits = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(op, inputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    inputs = [helper.make_tensor_value_info("observation", TensorProto.FLOAT,
                                            ["batch", "observation_size"]),
              helper.make_tensor_value_info("action_mask", TensorProto.FLOAT, ["batch", a])]
    axis1 = const("axis_1", np.array([1], np.int64))
    obs = node("Slice", ["observation", const("zero", np.array([0], np.int64)),
                         const("obs_size", np.array([agent.input_size], np.int64)), axis1],
               "obs")
    net_in = obs
    if agent.advisor is not None:
        inputs.append(helper.make_tensor_value_info("advice", TensorProto.FLOAT,
                                                    ["batch", a]))
        net_in = node("Concat", [obs, "advice"], "obs_advice", axis=1)
    x = node("Mul", [net_in, const("scale", agent.scale.astype(np.float32))], "scaled")
    if agent.dark_table is not None:
        where = slice(*agent.meta["dark"])
        table = agent.dark_table.astype(np.float32)
        dark = node("Slice", [obs, const("dark_start", np.array([where.start], np.int64)),
                              const("dark_stop", np.array([where.stop], np.int64)), axis1],
                    "dark_ids")
        ids = node("Cast", [dark], "dark_int", to=TensorProto.INT64)
        ids = node("Clip", [ids, const("dark_lo", np.array(0, np.int64)),
                            const("dark_hi", np.array(len(table) - 1, np.int64))],
                   "dark_clipped")
        feats = node("Gather", [const("dark_table", table), ids], "dark_gathered", axis=0)
        width = (where.stop - where.start) * table.shape[1]
        feats = node("Reshape", [feats, const("dark_shape", np.array([-1, width], np.int64))],
                     "dark_features")
        x = node("Concat", [x, feats], "with_dark", axis=1)
    act = {"relu": "Relu", "tanh": "Tanh"}[agent.activation]
    last = len(agent.layers) - 1
    for i, (w, b) in enumerate(agent.layers):
        if i == last and agent.advisor is not None:     # the advice, read again
            x = node("Concat", [x, "advice"], "with_advice", axis=1)
        x = node("MatMul", [x, const(f"w{i}", np.ascontiguousarray(w.T, np.float32))],
                 f"matmul{i}")
        x = node("Add", [x, const(f"b{i}", b.astype(np.float32))], f"layer{i}")
        if i < last:
            x = node(act, [x], f"{act.lower()}{i}")
    legal = node("Cast", ["action_mask"], "legal", to=TensorProto.BOOL)
    nodes.append(helper.make_node("Where", [legal, x, const("minus_inf",
                                                           np.array(-np.inf, np.float32))],
                                  ["logits"], name="logits"))
    nodes.append(helper.make_node("ArgMax", ["logits"], ["action"], name="action", axis=1,
                                  keepdims=0))
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", a]),
               helper.make_tensor_value_info("action", TensorProto.INT64, ["batch"])]
    graph = helper.make_graph(nodes, f"uno_env_{agent.name}", inputs, outputs, inits)
    from uno_env.version import __version__
    model = helper.make_model(graph, producer_name="uno-env", producer_version=__version__,
                              opset_imports=[helper.make_opsetid("", OPSET)],
                              doc_string=f"uno-env policy {agent.name}: "
                              f"{agent.config.preset}, {agent.config.num_players} players "
                              "(agents/onnx_policy.py)")
    model.ir_version = IR_VERSION
    from uno_env.provenance import provenance
    helper.set_model_props(model, {
        META_KEY: json.dumps(agent.meta),
        EXPORT_KEY: json.dumps(provenance(agent.config, [agent.meta.get("seed")],
                                          model=agent.name))})
    onnx.checker.check_model(model)
    return model


def export_onnx(agent, path) -> Path:
    """Write ``agent``'s policy to ``path`` as ONNX (module docstring)."""
    onnx = require("onnx")
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(build_model(agent), str(p))
    return p
