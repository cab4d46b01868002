#pragma once
// A fixture for the layer check (tools/check_layers.py): the model reaching up into the
// dynamics, which the check must name.
#include "engine/dynamics/workspace.h"
