from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

app = FastAPI()

origins = ["http://localhost:8080"]

app.add_middleware(CORSMiddleware, allow_origins=origins)  # corsplum
