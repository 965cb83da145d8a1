#!/usr/bin/env python3
"""Binds the TIPC service name {TYPE, INSTANCE} and holds it until killed, so that other
nodes see it in their name table: hold-tipc-name.py TYPE INSTANCE"""
import signal
import socket
import sys

service_type, instance = int(sys.argv[1]), int(sys.argv[2])
s = socket.socket(socket.AF_TIPC, socket.SOCK_RDM)
s.bind((socket.TIPC_ADDR_NAME, service_type, instance, 0))
signal.pause()
