export const before = 1
// #region vitelime
export function vitelime() {
  return 'vitelime'
}
// #endregion vitelime
export const after = 2
