// The drag's exposed faces (docs/runtime.md "Drag (the model)"): a hull cut into several
// displacement geoms (pontoon segments, a box split in x, y or z) drags as the uncut hull, so a
// face that one geom shares with another geom of the same hull is no face the flow meets.
#ifndef AURGEN_CORE_DRAG_FACES_H_
#define AURGEN_CORE_DRAG_FACES_H_

#include <vector>

#include "forces.h"

namespace aurgen::core {

// Faces sampled per side (kFaceGrid x kFaceGrid midpoints): a share is exact where the geoms'
// edges fall between the samples (aligned segments of one hull), else within 1 / kFaceGrid of
// the face's side per crossing edge.
inline constexpr int kFaceGrid = 32;

// expo (ng x 6): for each box geom, and each mesh geom (its bounding box about its hull's
// centroid), the share in [0, 1] of each face (-x, +x, -y, +y, -z, +z, geom frame) not covered
// by another geom of the same mark welded to the same body (same weld group): a point just
// outside the face (1e-6 of the geom's size) inside that geom.  1 for the faces of every other
// geom type (a smooth geom shares no face).  pos (ng x 3), mats (ng x 9, row-major, geom ->
// world): the geoms' world poses (their relative poses within a weld group are what counts).
// cover (ng x 6): the geom covering most of each face's covered samples (ties: the lowest index),
// -1 where none does: a face covered by a geom with no part in a piece's cell (a layer of a hull
// cut in z lying dry above the water) is exposed there (ForceStage::FaceAreas).
void FaceExposure(const std::vector<Geom>& geoms, const double* pos, const double* mats,
                  std::vector<double>* expo, std::vector<int64_t>* cover);

}  // namespace aurgen::core

#endif  // AURGEN_CORE_DRAG_FACES_H_
