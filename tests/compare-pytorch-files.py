#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Compares what Poslens reads from PyTorch files with what torch.load (…, weights_only=True) gives,
tensor by tensor: for files from elsewhere (peer projects' test data, pickle scanners' corpora), which
are never loaded any other way. Needs Debian's python3-torch and numpy.

  /usr/bin/python3 tests/compare-pytorch-files.py POSLENS_CLI FILE...

Run it in an empty folder: a hostile file's payload is never run here, but that is where one would act.
Per file, one line: "same" (every float tensor Poslens lists equals torch's, bit for bit, and Poslens
lists every float tensor of the dict it chose), "both refuse", or what differs: a tensor's values or
shape, a tensor one side has and the other not, or one side refusing what the other reads. Exit status 1
when any file differs.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch


def torch_tensors(path):
    """The object torch's weights-only loader gives, or the error's last line. Nothing else ever loads
    these files: torch 1.13's torch.load ignores any pickle_module but its weights-only one and unpickles
    with the plain pickle module, which runs what the file says."""
    try:
        return torch.load(path, map_location='cpu', weights_only=True), None
    except Exception as e:  # noqa: BLE001 - any refusal is an answer
        return None, '%s: %s' % (type(e).__name__, (str(e).strip().splitlines() or [''])[-1][-120:])


def poslens_info(cli, path):
    proc = subprocess.run([cli, 'info', path, '--json', '--tensors'], capture_output=True, text=True)
    if proc.returncode != 0:
        return None, proc.stderr.strip().splitlines()[-1][:160] if proc.stderr.strip() else 'exit %d' % proc.returncode
    return json.loads(proc.stdout), None


def poslens_tensor(cli, path, name, out):
    proc = subprocess.run([cli, 'info', path, '--tensor', name, '--out', out], capture_output=True, text=True)
    if proc.returncode != 0:
        return None, proc.stderr.strip()
    return np.load(out), None


def under(obj, key):
    for part in (key or '').split('.'):
        if not part:
            continue
        if isinstance(obj, dict):
            obj = obj[part] if part in obj else obj[int(part)]
        else:
            obj = obj[int(part)]
    return obj


def compare(cli, path, tmp):
    obj, torch_error = torch_tensors(path)
    info, poslens_error = poslens_info(cli, path)
    if obj is None and info is None:
        return 'both refuse', 'torch %s | poslens %s' % (torch_error, poslens_error)
    if obj is None and 'Unsupported operand' in torch_error:
        return 'not compared', 'torch 1.13 lacks an instruction (%s); Poslens reads %d tensors' % (
            torch_error[-24:], info['tensor_count'])
    if obj is None:
        return 'DIFFERS', 'torch refuses (%s), Poslens reads %d tensors' % (torch_error, info['tensor_count'])
    if info is None:
        if isinstance(obj, dict) and not any(isinstance(v, torch.Tensor) for v in obj.values()):
            return 'poslens refuses', 'torch reads no tensors at the top; Poslens: %s' % poslens_error
        return 'DIFFERS', 'torch reads it, Poslens refuses: %s' % poslens_error
    key = info.get('state_dict_key')
    chosen = {'tensor': obj} if isinstance(obj, torch.Tensor) else under(obj, key)
    if isinstance(chosen, (list, tuple)):
        chosen = {str(i): v for i, v in enumerate(chosen)}
    listed = {t['name']: t for t in info.get('tensors', [])}
    problems = []
    compared = 0
    for name, t in chosen.items():
        if not isinstance(t, torch.Tensor) or not t.is_floating_point() or t.is_complex():
            continue
        if t.dtype not in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
            continue
        if name not in listed:
            problems.append('%s: not listed' % name)
            continue
        if list(t.shape) != listed[name]['shape']:
            problems.append('%s: shape %s, torch %s' % (name, listed[name]['shape'], list(t.shape)))
            continue
        if t.numel() == 0:
            continue
        got, error = poslens_tensor(cli, path, name, os.path.join(tmp, 'tensor.npy'))
        if got is None:
            problems.append('%s: %s' % (name, error.splitlines()[-1][:120]))
            continue
        want = t.detach().float().contiguous().numpy()
        if got.size != want.size or not np.array_equal(got.reshape(-1).view(np.uint32),
                                                       want.reshape(-1).view(np.uint32)):
            problems.append('%s: values differ' % name)
        compared += 1
    for name in listed:
        if name not in chosen:
            problems.append('%s: Poslens lists it, torch has no such tensor there' % name)
    if problems:
        return 'DIFFERS', '; '.join(problems[:4])
    return 'same', '%d float tensors%s' % (compared, ' under “%s”' % key if key else '')


def main():
    cli = sys.argv[1]
    differing = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in sys.argv[2:]:
            verdict, detail = compare(cli, path, tmp)
            differing += verdict == 'DIFFERS'
            print('%-15s %s: %s' % (verdict, path, detail))
    sys.exit(1 if differing else 0)


if __name__ == '__main__':
    main()
