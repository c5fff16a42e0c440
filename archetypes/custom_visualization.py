"""A request for a visualization standard charts cannot draw (interactive, map, animated, sankey, dashboard)."""
from __future__ import annotations

from archetypes.archetype import Archetype, Context
from archetypes.model import Detection, Reading

ID = "custom_visualization"
HEADER = "Visualization"
WHEN = ("The user requests a custom visualization, dashboard, or interactive display (interactive, map, animated, "
        "sankey, dashboard) that standard charts cannot represent.")
ASK = "A standard chart of the data, or a custom visualization built separately?"
REASON = ("The checker can run the data query behind the request and show a standard chart; an interactive or "
          "custom display is a separate build, so the person should say whether the standard view is enough.")

READINGS = (("standard_chart", "Standard chart (table, bar or line) of the same data"),
            ("custom", "Custom visualization (the same data; the display is built separately)"))


def detect(ctx: Context) -> Detection | None:
    if ctx.intent.viz is None:
        return None
    # both readings share the base query: the difference is the display, not the numbers
    return ARCHETYPE.detection(ctx.intent.viz, [Reading(v, label) for v, label in READINGS])


ARCHETYPE = Archetype(ID, HEADER, WHEN, ASK, REASON, detect)
