#pragma once
// CAD assemblies written with OpenCASCADE for the STEP importer's tests and examples.

#include <TDocStd_Document.hxx>

#include <cmath>
#include <cstddef>
#include <string>

namespace engine::test {

// A new XDE document (OpenCASCADE's assembly tree with names, colours and materials).
Handle(TDocStd_Document) newXdeDocument();

// The document as a STEP file (AP214, millimetres, names, colours and, when asked, materials),
// OpenCASCADE's messages silenced; then the document is closed (its label tree, which refers to
// itself, freed). Throws std::runtime_error when it cannot be written.
void writeStep(const Handle(TDocStd_Document) & document, const std::string& path,
               bool materials = false);

// A four-bar linkage as solids, in millimetres, standing in the x-z plane (pins along y, so
// gravity swings it): the frame (a plate with two pins, A and D, 200 mm apart), the crank (60 mm,
// a hole at A and a pin at B), the coupler (180 mm, holes at B and C) and the rocker (120 mm, a
// hole at D and a pin at C), 10 mm plates stacked along the pins, every pin Ø10 in a hole Ø10.
// The crank stands at `crankAngle` (rad; 60° by default) from the frame: each link's solid is
// drawn where the link is, every component placed by the same rotation (standing up), so another
// angle moves the holes and pins within their parts (a re-import's test). Components named frame,
// crank, coupler, rocker.
void writeFourBarStep(const std::string& path, double crankAngle = M_PI / 3);

// Pads the STEP file `path` with `bytes` of points nothing uses, before the end of its data
// section (as a large assembly's file holds millions of entities). Throws std::runtime_error
// when it cannot be read or written.
void padStep(const std::string& path, std::size_t bytes);

// A small assembly for the STEP fuzzer's seeds (under 64 kB): a named, coloured 40 × 20 × 10 mm
// block, and on it a second one with a Ø8 pin 20 mm long standing in its hole, the second block
// and the pin a sub-assembly.
void writePinnedBlocksStep(const std::string& path);

// A chain of `links` links in a staircase (the import's cost at scale: 10 faces per link, 5,000
// for 500): link k a 10 mm plate at height 10 k mm, holed at its start and pinned at its end, the
// pin standing in the next link's hole. Components named link1, link2, ….
void writeLinkChainStep(const std::string& path, int links);

}  // namespace engine::test
