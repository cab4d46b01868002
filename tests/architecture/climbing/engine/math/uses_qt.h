#pragma once
// A fixture for the layer check: the engine including Qt, which the check must name.
#include <QString>
