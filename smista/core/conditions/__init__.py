"""Rule condition kinds: one module per kind, one registry (:mod:`.registry`).

Pure core. Each kind module owns its TOML key, validation, compilation,
matching and evidence, reason wording and confidence effect, lints, JSON
Schema fragment and hypothesis strategy (see :class:`.base.ConditionKind`).
:mod:`.view` holds the per-prompt features the kinds read, :mod:`.markers`
the question/filler marker data. Must never perform I/O.
"""
