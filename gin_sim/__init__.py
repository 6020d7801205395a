"""gin-sim"""
