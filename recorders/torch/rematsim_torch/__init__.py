"""rematsim_torch: record PyTorch training iterations as rematsim op logs.

    import rematsim_torch
    with rematsim_torch.Recorder("model.log.gz", model=model, optimizer=optimizer) as rec:
        rec.start()                 # the measured iteration begins
        loss = loss_fn(model(x), y)
        rec.backward(loss)          # annotates BACKWARD, runs loss.backward()
        optimizer.step()

writes model.log.gz and model.meta.json. `python3 -m rematsim_torch record
--help` records torchvision models and a GPT-2-style decoder.

    rows = rematsim_torch.replay("model.log.gz", heuristic="DTR", ratio=[0.5, 0.8])

runs the built rematsim binary (rematsim_torch.api: replay, fit, peak;
pandas DataFrames with as_frame=True).
"""

from .oplog import VERSION, LogError, OpLog, OutputError, check_output, meta_path_for


_CHECKPOINT = ("suggest", "apply", "measure", "plans_for", "Plan", "CheckpointError",
               "state_bytes", "measure_fresh", "load_factory", "FactoryModel")


_API = ("replay", "fit", "peak", "find_rematsim", "RematsimError", "RematsimNotFound")


def __getattr__(name):
    # The recorder imports torch (seconds): only when it is asked for, so
    # that `python3 -m rematsim_torch` answers a bad command line at once.
    if name in ("Recorder", "RecorderError", "SCHEMA_GAPS", "CLOCKS"):
        from . import recorder
        return getattr(recorder, name)
    if name in ("fake_mode", "FakeSession", "FakeOpError"):
        from . import fake
        return getattr(fake, name)
    if name in _API:
        from . import api
        return getattr(api, name)
    if name in _CHECKPOINT:
        from . import checkpoint
        return getattr(checkpoint, name)
    raise AttributeError("module 'rematsim_torch' has no attribute '%s'" % name)


__all__ = ["Recorder", "RecorderError", "OpLog", "LogError", "OutputError", "check_output",
           "meta_path_for",
           "SCHEMA_GAPS", "CLOCKS", "VERSION", "fake_mode", "FakeSession",
           "FakeOpError"] + list(_CHECKPOINT) + list(_API)
__version__ = VERSION
