"""Floor 3: reading and writing worlds: glTF and OBJ export (:mod:`voxelworld.io.gltf`, :mod:`voxelworld.io.obj`)."""
