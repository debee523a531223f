import os
# --8<-- [start:pear]
def snippear():
    return "snippear"
# --8<-- [end:pear]
print("tail")
