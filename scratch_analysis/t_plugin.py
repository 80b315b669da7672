import time, numpy as np
from data import load
from selbayes import HierarchicalGaussianClassifier
from selbayes.model_selection import choose_k
X,y=load("sorlie")
t=time.time(); ch=choose_k(HierarchicalGaussianClassifier(), X, y, random_state=0); print(time.time()-t)
print(ch.table())
