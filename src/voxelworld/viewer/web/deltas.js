// How the page lays a frame or HUD delta over what it has (play protocol 6): the mirror of
// voxelworld.viewer.frame_messages.merged, tried against it (tests/viewer/test_frame_deltas.py).

const NESTED = ["player", "aim"]; // fields a delta carries as a delta of their own (frame_messages.NESTED)

// The page's state after `message`: a delta (its "base" not null) laid over `state`, a whole one as it is. A delta's
// nested objects are laid over the state's; its "objects", "moved" and "objects_gone" change those objects alone.
export function merged(state, message) {
  if (message.base === null || message.base === undefined || !state) return message;
  const view = { ...state, ...message };
  for (const name of NESTED) {
    const part = message[name];
    if (part && typeof part === "object" && state[name] && typeof state[name] === "object") {
      view[name] = { ...state[name], ...part };
    }
  }
  if (message.objects_gone) {
    const objects = new Map((state.objects ?? []).map((o) => [o.name, o]));
    for (const name of message.objects_gone) objects.delete(name);
    for (const [name, x, y, z] of message.moved) objects.set(name, { ...objects.get(name), position: [x, y, z] });
    for (const o of message.objects) objects.set(o.name, o);
    view.objects = [...objects.values()];
    delete view.objects_gone;
    delete view.moved;
  }
  return view;
}
