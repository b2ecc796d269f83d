#!/usr/bin/env python3
"""Picks the 16 rank colours of app/views/palette.h (collsim issue 16).

Greedy max-min over a candidate set: named palettes (Kelly 1965, Okabe-Ito, Paul Tol's
bright/vibrant/muted/light) and a 16-level sRGB grid, as Glasbey's method searches a grid.
The score of a candidate against the chosen set is the smaller of its CIEDE2000 distance
under normal vision and CVD_WEIGHT times its distance under simulated deuteranopia,
protanopia and tritanopia (Machado, Oliveira & Fernandes 2009, severity 1): so colours
that collapse for colour-blind viewers are avoided where the normal-vision spread allows.

Constraints: chromatic (C*ab >= MIN_CHROMA: a neutral means "not a rank", e.g. packets),
light enough for the dark rank-number text in a disc and to stand out on the dark theme
(L* >= MIN_L), and far from the theme's background/panel/empty_cell/missing_slot and the
neutral packet colour. Prints the table and the distances; the C++ test
(tests/gui/test_palette.cpp) checks the table that is committed, not this script.
"""
import itertools, math

def srgb_to_lab(c):
    def lin(v):
        v /= 255.0
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(v) for v in c)
    return xyz_to_lab(lin_to_xyz((r, g, b)))

def lin_to_xyz(rgb):
    r, g, b = rgb
    return (0.4124564 * r + 0.3575761 * g + 0.1804375 * b,
            0.2126729 * r + 0.7151522 * g + 0.0721750 * b,
            0.0193339 * r + 0.1191920 * g + 0.9503041 * b)

def xyz_to_lab(xyz):
    wx, wy, wz = 0.95047, 1.0, 1.08883
    def f(t):
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29
    fx, fy, fz = f(xyz[0] / wx), f(xyz[1] / wy), f(xyz[2] / wz)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))

def de2000(l1, l2):
    L1, a1, b1 = l1
    L2, a2, b2 = l2
    C1, C2 = math.hypot(a1, b1), math.hypot(a2, b2)
    Cb = (C1 + C2) / 2
    G = 0.5 * (1 - math.sqrt(Cb ** 7 / (Cb ** 7 + 25 ** 7)))
    a1p, a2p = (1 + G) * a1, (1 + G) * a2
    C1p, C2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if C1p else 0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if C2p else 0
    dL, dC = L2 - L1, C2p - C1p
    if C1p * C2p == 0: dh = 0
    elif abs(h2p - h1p) <= 180: dh = h2p - h1p
    elif h2p - h1p > 180: dh = h2p - h1p - 360
    else: dh = h2p - h1p + 360
    dH = 2 * math.sqrt(C1p * C2p) * math.sin(math.radians(dh / 2))
    Lb, Cbp = (L1 + L2) / 2, (C1p + C2p) / 2
    if C1p * C2p == 0: hb = h1p + h2p
    elif abs(h1p - h2p) <= 180: hb = (h1p + h2p) / 2
    elif h1p + h2p < 360: hb = (h1p + h2p + 360) / 2
    else: hb = (h1p + h2p - 360) / 2
    T = (1 - 0.17 * math.cos(math.radians(hb - 30)) + 0.24 * math.cos(math.radians(2 * hb))
         + 0.32 * math.cos(math.radians(3 * hb + 6)) - 0.20 * math.cos(math.radians(4 * hb - 63)))
    dtheta = 30 * math.exp(-(((hb - 275) / 25) ** 2))
    Rc = 2 * math.sqrt(Cbp ** 7 / (Cbp ** 7 + 25 ** 7))
    Sl = 1 + 0.015 * (Lb - 50) ** 2 / math.sqrt(20 + (Lb - 50) ** 2)
    Sc, Sh = 1 + 0.045 * Cbp, 1 + 0.015 * Cbp * T
    Rt = -math.sin(math.radians(2 * dtheta)) * Rc
    return math.sqrt((dL / Sl) ** 2 + (dC / Sc) ** 2 + (dH / Sh) ** 2 + Rt * (dC / Sc) * (dH / Sh))

# Machado et al. 2009, severity 1.0, on linear RGB.
CVD = {
    "protan": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deutan": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "tritan": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}

def simulate_lab(c, m):
    def lin(v):
        v /= 255.0
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    rgb = [lin(v) for v in c]
    out = [min(1.0, max(0.0, sum(m[i][j] * rgb[j] for j in range(3)))) for i in range(3)]
    return xyz_to_lab(lin_to_xyz(out))

def hexrgb(h):
    return tuple(int(h[i:i + 2], 16) for i in (1, 3, 5))

NAMED = {
    # Kelly (1965), 22 colours of maximum contrast (white, black and grey are dropped below).
    "Kelly vivid yellow": "#FFB300", "Kelly strong purple": "#803E75", "Kelly vivid orange": "#FF6800",
    "Kelly very light blue": "#A6BDD7", "Kelly vivid red": "#C10020", "Kelly grayish yellow": "#CEA262",
    "Kelly medium gray": "#817066", "Kelly vivid green": "#007D34", "Kelly strong purplish pink": "#F6768E",
    "Kelly strong blue": "#00538A", "Kelly strong yellowish pink": "#FF7A5C", "Kelly strong violet": "#53377A",
    "Kelly vivid orange yellow": "#FF8E00", "Kelly strong purplish red": "#B32851", "Kelly vivid greenish yellow": "#F4C800",
    "Kelly strong reddish brown": "#7F180D", "Kelly vivid yellowish green": "#93AA00", "Kelly deep yellowish brown": "#593315",
    "Kelly vivid reddish orange": "#F13A13", "Kelly dark olive green": "#232C16",
    "Okabe-Ito orange": "#E69F00", "Okabe-Ito sky blue": "#56B4E9", "Okabe-Ito bluish green": "#009E73",
    "Okabe-Ito yellow": "#F0E442", "Okabe-Ito blue": "#0072B2", "Okabe-Ito vermillion": "#D55E00",
    "Okabe-Ito reddish purple": "#CC79A7",
    "Tol bright blue": "#4477AA", "Tol bright cyan": "#66CCEE", "Tol bright green": "#228833",
    "Tol bright yellow": "#CCBB44", "Tol bright red": "#EE6677", "Tol bright purple": "#AA3377",
    "Tol vibrant orange": "#EE7733", "Tol vibrant blue": "#0077BB", "Tol vibrant cyan": "#33BBEE",
    "Tol vibrant magenta": "#EE3377", "Tol vibrant red": "#CC3311", "Tol vibrant teal": "#009988",
    "Tol muted rose": "#CC6677", "Tol muted indigo": "#332288", "Tol muted sand": "#DDCC77",
    "Tol muted green": "#117733", "Tol muted cyan": "#88CCEE", "Tol muted wine": "#882255",
    "Tol muted teal": "#44AA99", "Tol muted olive": "#999933", "Tol muted purple": "#AA4499",
    "Tol light blue": "#77AADD", "Tol light orange": "#EE8866", "Tol light yellow": "#EEDD88",
    "Tol light pink": "#FFAABB", "Tol light cyan": "#99DDFF", "Tol light mint": "#44BB99",
    "Tol light pear": "#BBCC33", "Tol light olive": "#AAAA00",
}

THEME = {"background": (24, 26, 31), "panel": (32, 35, 42), "empty_cell": (48, 52, 62), "missing_slot": (62, 67, 80)}
PACKET = (226, 229, 236)  # palette::packet, the neutral of packets and timeline bars
MIN_L, MIN_CHROMA, MIN_THEME, MIN_PACKET = 50.0, 25.0, 30.0, 20.0
CVD_WEIGHT = 2.0  # a CVD distance counts double: 8 under deuteranopia is as good as 16 normally
N = 16

def candidates():
    """The named colours, then a 16-level sRGB grid (a Glasbey-like search), filtered."""
    grid = [(r, g, b) for r in range(0, 256, 17) for g in range(0, 256, 17) for b in range(0, 256, 17)]
    out = []
    for c in [hexrgb(h) for h in NAMED.values()] + grid:
        lab = srgb_to_lab(c)
        if lab[0] < MIN_L or math.hypot(lab[1], lab[2]) < MIN_CHROMA: continue
        if min(de2000(lab, srgb_to_lab(t)) for t in THEME.values()) < MIN_THEME: continue
        if de2000(lab, srgb_to_lab(PACKET)) < MIN_PACKET: continue
        out.append(c)
    return list(dict.fromkeys(out))

def min_pair(colours, f=srgb_to_lab):
    labs = [f(c) for c in colours]
    return min((de2000(labs[i], labs[j]), i, j) for i, j in itertools.combinations(range(len(labs)), 2))

def main():
    cands = candidates()
    views = {c: [srgb_to_lab(c)] + [simulate_lab(c, m) for m in CVD.values()] for c in cands}
    cache = {}
    def d(x, y):  # normal vision, or CVD_WEIGHT times the closest CVD view
        if (x, y) not in cache:
            a, b = views[x], views[y]
            cache[x, y] = min([de2000(a[0], b[0])] + [CVD_WEIGHT * de2000(a[k], b[k]) for k in (1, 2, 3)])
        return cache[x, y]
    # Rank 0 keeps Okabe-Ito orange; each next rank is the candidate farthest from those
    # chosen, so the first 4 and 8 ranks (the common classroom sizes) are the most apart.
    chosen = [(230, 159, 0)]
    while len(chosen) < N:
        chosen.append(max((c for c in cands if c not in chosen), key=lambda c: min(d(c, o) for o in chosen)))
    names = {hexrgb(h): n for n, h in NAMED.items()}
    print(f"{len(cands)} candidates")
    for i, c in enumerate(chosen):
        L, a, b = srgb_to_lab(c)
        print(f"    {{{c[0]}, {c[1]}, {c[2]}}},  // {i}: {names.get(c, 'grid')} (L* {L:.0f})")
    for k in (4, 8, 16):
        dd, i, j = min_pair(chosen[:k])
        print(f"first {k}: min dE00 {dd:.2f} (ranks {i}, {j})", end="")
        for name, m in CVD.items():
            d2, i2, j2 = min_pair(chosen[:k], lambda c: simulate_lab(c, m))
            print(f"; {name} {d2:.2f} ({i2}, {j2})", end="")
        print()
    print(f"min dE00 to the theme: {min(de2000(srgb_to_lab(c), srgb_to_lab(t)) for c in chosen for t in THEME.values()):.2f}")
    print(f"min dE00 to the packet neutral: {min(de2000(srgb_to_lab(c), srgb_to_lab(PACKET)) for c in chosen):.2f}")

if __name__ == "__main__":
    main()
