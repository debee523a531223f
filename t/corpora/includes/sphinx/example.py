# header
def sphinxfig():
    return "sphinxfig"
# footer
