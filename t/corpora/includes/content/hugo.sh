echo hugodate
