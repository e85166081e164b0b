#!/usr/bin/python3
"""Generates the codec test/benchmark data from small real computations.

Run from anywhere: /usr/bin/python3 data/gen_data.py (Debian numpy). Output is deterministic (fixed
seeds) and little-endian raw arrays, named NAME.f64 / NAME.f32.

  heat_tNNNNN.f64  2-D heat equation (explicit FTCS, 256x256) after NNNNN steps
  heat_t01000.f32  the same field at step 1000 in single precision
  md_pos.f64       Lennard-Jones particle coordinates (x,y,z interleaved) after
                   200 velocity-Verlet steps from a perturbed FCC lattice
  random.f64       uniform random doubles in [0, 1)
  sparse.f64       mostly-zero field (about 1% nonzero)
"""
import os

import numpy as np

OUT = os.path.dirname(os.path.abspath(__file__))


def save(name, a):
    a = np.ascontiguousarray(a)
    a.astype(a.dtype.newbyteorder("<")).tofile(os.path.join(OUT, name))


def heat(snapshots, n=256):
    # Plate with two hot sources and a hot and a cold edge; dt at 0.2 of the
    # stability limit's alpha*dt/dx^2 = 0.25.
    rng = np.random.default_rng(1)
    u = np.full((n, n), 20.0)
    y, x = np.mgrid[0:n, 0:n] / n
    u += 300.0 * np.exp(-((x - 0.3) ** 2 + (y - 0.4) ** 2) / 0.005)
    u += 150.0 * np.exp(-((x - 0.7) ** 2 + (y - 0.65) ** 2) / 0.01)
    u += rng.normal(0.0, 0.5, u.shape)  # measurement-like initial noise
    r = 0.2
    step = 0
    for target in snapshots:
        while step < target:
            u[0, :] = 100.0
            u[-1, :] = 0.0
            u[:, 0] = u[:, 1]
            u[:, -1] = u[:, -2]
            u[1:-1, 1:-1] += r * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] +
                                  u[1:-1, :-2] - 4.0 * u[1:-1, 1:-1])
            step += 1
        yield target, u.copy()


def md(cells=10, steps=200, dt=0.004):
    # LJ fluid in reduced units, density 0.8, cutoff 2.5, minimum image.
    rng = np.random.default_rng(2)
    a = (4 / 0.8) ** (1 / 3)
    base = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]])
    grid = np.array([[i, j, k] for i in range(cells) for j in range(cells)
                     for k in range(cells)], dtype=float)
    pos = ((grid[:, None, :] + base[None, :, :]).reshape(-1, 3)) * a
    box = cells * a
    pos += rng.normal(0, 0.02, pos.shape)
    vel = rng.normal(0, 1.0, pos.shape)
    vel -= vel.mean(axis=0)

    def forces(p):
        f = np.zeros_like(p)
        for i in range(0, len(p), 500):  # chunked to bound memory
            d = p[i:i + 500, None, :] - p[None, :, :]
            d -= box * np.round(d / box)
            r2 = (d * d).sum(-1)
            np.fill_diagonal(r2[:, i:i + 500], np.inf)
            r2 = np.where(r2 < 6.25, r2, np.inf)
            inv6 = 1.0 / r2 ** 3
            coef = 24.0 * (2.0 * inv6 * inv6 - inv6) / r2
            f[i:i + 500] = (coef[:, :, None] * d).sum(1)
        return f

    f = forces(pos)
    for _ in range(steps):
        vel += 0.5 * dt * f
        pos = (pos + dt * vel) % box
        f = forces(pos)
        vel += 0.5 * dt * f
    return pos


def main():
    for t, u in heat([100, 1000, 10000]):
        save(f"heat_t{t:05d}.f64", u)
        if t == 1000:
            save("heat_t01000.f32", u.astype(np.float32))
    save("md_pos.f64", md())
    rng = np.random.default_rng(3)
    save("random.f64", rng.random(32768))
    s = np.zeros(131072)
    idx = rng.choice(s.size, s.size // 100, replace=False)
    s[idx] = rng.normal(0, 1, idx.size)
    save("sparse.f64", s)


if __name__ == "__main__":
    main()
